import { Refusal } from '../../platform/refusal.ts';
import { Company } from '../../db/companies/company.entity.ts';
import type { DocumentExpenses, DocumentSupport } from '../../db/documents/document.entity.ts';
import {
  readImportingCompany,
  readKnownDocument,
  writeConflictLog,
  writeContentHash,
  writeImportedDocument,
  type KnownDocument,
} from '../../db/documents/import-statements.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { PaymentReceiptComplement } from '../../db/documents/payment-receipt-complement.entity.ts';
import { CURRENCIES, type Currency } from '../../db/money.ts';
import { uuidv7 } from '../../db/ids.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { inTransaction } from '../../db/prepared.ts';
import { insertDeliveries } from '../../db/webhooks/webhook-delivery.repository.ts';
import type {
  FiscalParseContext,
  NormalizedDocument,
  NormalizedPaymentComplement,
  SupportDocumentFacts,
} from '../../fiscal/normalized-document.ts';
import { contentDifferences, contentHash, type ContentPart } from '../../fiscal/content-hash.ts';
import { centsToDecimal } from '../../fiscal/money.ts';
import { FiscalDocumentError, parseFiscalDocument } from '../../fiscal/parse.ts';
import type { FileStorage } from '../../platform/storage/file-storage.ts';
import { startDocumentProcesses, type JustRecorded } from './document-processes.ts';
import type { Processes } from '../processes.ts';
import { documentCreatedPayload } from '../webhooks/payloads.ts';
import type { DianSettings } from '../dian/settings.ts';

export interface ImportFiscalDocumentInput {
  companyId: string;
  fileName: string;
  /** The file as received: its encoding is read from its BOM or XML declaration, and it is stored byte for byte. */
  xml: string | Uint8Array;
  /** `fiscal` for tax-authority documents (CLI import, fiscal sync). */
  source: string;
}

export type ImportFiscalDocumentResult =
  | { kind: 'document'; created: boolean; reference: string; documentNumber: string; fiscalReference: string }
  | {
      kind: 'payment_complement';
      created: boolean;
      fiscalReference: string;
      documentNumber: string;
      appliedTo: string[];
      unknownDocuments: string[];
    };

/** A well-formed fiscal file that this company cannot take (another country, a currency the service does not hold). */
export class ImportRejected extends Refusal {}

export interface ImportDeps {
  orm: Orm;
  storage: FileStorage;
  processes: Processes;
  /** The API's public URL, for links in the `document.created` payload. */
  publicUrl: string;
  /** The DIAN software the service issues with: a documento soporte it issued has its CUDS recomputed with the PIN. */
  dian?: Pick<DianSettings, 'softwareId' | 'softwarePin'>;
}

/**
 * Imports one fiscal XML for a company: the document, its supplier as beneficiary, its line items and a
 * `document.created` log, in one transaction; then makes sure its lifecycle workflow runs. A DIAN documento soporte
 * becomes an `expense` whose beneficiary is its seller, with its `document_support`. Importing a file that says the
 * same again (the same bytes, or the same content) returns the existing document, so the call is safe to retry; a
 * known fiscal reference with other content is refused (`fiscal_reference_conflict`) and logged on that document.
 */
export async function importFiscalDocument(
  deps: ImportDeps,
  input: ImportFiscalDocumentInput,
): Promise<ImportFiscalDocumentResult> {
  const em = companyEm(deps.orm, input.companyId);
  const company = await readImportingCompany(em, input.companyId);
  if (!company) throw new Error(`company ${input.companyId} does not exist`);
  const { softwareId, softwarePin } = deps.dian ?? {};
  const context: FiscalParseContext = {
    ownTaxId: company.taxId,
    dianSoftware: softwareId && softwarePin ? { id: softwareId, pin: softwarePin } : null,
  };
  const parsed = parseFiscalDocument(input.xml, input.fileName, context);
  if (parsed.kind === 'payment_complement')
    return importPaymentComplement(em, em.getReference(Company, company.id), parsed.complement);

  const normalized = parsed.document;
  if (normalized.country !== company.country) {
    throw new ImportRejected(
      'country_mismatch',
      `${input.fileName}: a ${normalized.country} document cannot be imported for a ${company.country} company`,
    );
  }
  const currency = knownCurrency(normalized.currency, input.fileName);
  // Whether this call made the document: an import that lost a race to the same file finds it made.
  let created = false;
  let document = await readKnownDocument(em, company.id, normalized.fiscalReference);
  let recorded: JustRecorded | undefined;
  // A race lost over a supplier new to the company (both imports created it) is tried again, now finding it.
  for (let attempt = 0; !document; attempt++) {
    const made = await createDocument(deps, em, company.id, normalized, currency, input);
    if (made) {
      ({ document, recorded } = made);
      created = true;
    } else {
      document = await readKnownDocument(em, company.id, normalized.fiscalReference);
      if (!document && attempt === 2) throw new Error(`${input.fileName}: the import kept losing races to others`);
    }
  }
  if (!created) await refuseConflict(deps, em, document, normalized, { ...input, context });
  await startDocumentProcesses(
    deps.processes,
    em,
    {
      companyId: company.id,
      documentId: document.id,
      fiscalReference: document.fiscalReference,
      documentNumber: document.documentNumber,
      approvalStatus: document.approvalStatus,
      type: document.type,
      supplierName: document.supplierName,
      amountCents: document.amountCents,
      currency: document.currency,
    },
    recorded,
  );
  return {
    kind: 'document',
    created,
    reference: document.id,
    documentNumber: document.documentNumber,
    fiscalReference: normalized.fiscalReference,
  };
}

/** Thrown inside the import's transaction when another import committed first: nothing of this one is kept. */
class RaceLost extends Error {}

/**
 * Writes the document, its supplier, lines, log and `document.created` deliveries in one transaction; null when
 * another import committed the same document, or the same new supplier, first.
 */
async function createDocument(
  deps: ImportDeps,
  em: EntityManager,
  companyId: string,
  normalized: NormalizedDocument,
  currency: Currency,
  input: ImportFiscalDocumentInput,
): Promise<{ document: KnownDocument; recorded: JustRecorded } | null> {
  const documentId = uuidv7();
  // The key, not a URL: links are built when presented, from the serving API's own public URL.
  const key = `${companyId}/documents/${documentId}/${documentId}.xml`;
  const support = normalized.supportDocument;
  const amounts = {
    amountCents: normalized.totals.totalCents,
    prepaidCents: normalized.prepaid?.amountCents ?? null,
  };
  try {
    return await inTransaction(em, async (tx) => {
      const { written, subscribers, flow } = await writeImportedDocument(tx, {
        companyId,
        documentId,
        at: new Date(),
        supplier: normalized.supplier,
        document: {
          country: normalized.country,
          documentNumber: normalized.documentNumber,
          type: normalized.type,
          ...amounts,
          currency,
          subtotalCents: normalized.totals.subtotalCents,
          taxTotalCents: normalized.totals.taxTotalCents,
          withholdingTotalCents: normalized.totals.withholdingTotalCents,
          prepaidConvention: normalized.prepaid?.convention ?? null,
          ...storedExchangeRate(normalized, input.fileName),
          issueDate: new Date(normalized.issueDate),
          expirationDate: normalized.expirationDate ? new Date(normalized.expirationDate) : null,
          fiscalReference: normalized.fiscalReference,
          contentHash: contentHash(normalized),
          fiscalMetadata: {
            finalNotes: normalized.finalNotes,
            format: normalized.format,
            references: normalized.references,
            payment: normalized.payment,
            ...normalized.metadata,
            // Information only: the amounts are already local, nothing is converted with it.
            statedExchangeRate: normalized.statedExchangeRate,
          },
          purchaseOrder: normalized.purchaseOrder,
          sourceXmlPath: key,
          createdBy: { source: input.source, user: null },
          documentSupport: support ? storedSupport(support) : null,
          expenses: support ? supportedExpense(normalized, key, input.fileName) : null,
        },
        lines: normalized.lineItems.map((line) => ({
          ...line,
          adjustments: line.adjustments.map((adjustment) => ({
            type: adjustment.type,
            code: adjustment.code,
            rate: adjustment.rate,
            ratePercentage: adjustment.ratePercentage,
            baseAmountCents: Number(adjustment.baseAmountCents),
            amountCents: Number(adjustment.amountCents),
            isInclusive: adjustment.isInclusive,
            metadata: adjustment.name ? { name: adjustment.name } : {},
          })),
        })),
        log: {
          event: 'document.created',
          actor: { type: 'system', source: input.source },
          metadata: { file_name: input.fileName, format: normalized.format },
        },
      });
      if (!written) throw new RaceLost();
      // The payload is the document as the API lists it, read back inside this transaction.
      const deliveries = subscribers.length
        ? await insertDeliveries(
            tx,
            {
              companyId,
              event: 'document.created',
              subjectId: documentId,
              payload: await documentCreatedPayload(
                tx,
                { id: documentId, company: { id: companyId }, ...amounts },
                deps.publicUrl,
              ),
            },
            subscribers,
          )
        : [];
      // The XML is stored before the commit: a rolled-back import leaves at most an unreferenced file, never a
      // document without its XML.
      const bytes = typeof input.xml === 'string' ? new TextEncoder().encode(input.xml) : input.xml;
      await deps.storage.put(key, bytes, 'application/xml');
      const document: KnownDocument = {
        id: documentId,
        companyId,
        type: normalized.type,
        supplierName: normalized.supplier.name,
        documentNumber: normalized.documentNumber,
        fiscalReference: normalized.fiscalReference,
        amountCents: normalized.totals.totalCents,
        currency,
        approvalStatus: 'pending',
        issuer: `${normalized.supplier.identifierType} ${normalized.supplier.identifierNumber}`,
        contentHash: contentHash(normalized),
        sourceXmlPath: key,
      };
      return { document, recorded: { deliveries, flow: flow?.steps ?? [] } };
    });
  } catch (error) {
    if (error instanceof RaceLost) return null;
    throw error;
  }
}

/** The documento soporte as `documents.document_support` keeps it. */
function storedSupport(support: SupportDocumentFacts): DocumentSupport {
  const { seller } = support;
  return {
    issueDate: support.issueDate,
    documentNumber: support.documentNumber,
    cuds: support.cuds,
    cudsCheck: support.cudsCheck,
    seller: {
      name: seller.name,
      identifierType: seller.identifierType,
      identifierNumber: seller.identifierNumber,
      checkDigit: seller.checkDigit,
      email: seller.email,
      address: seller.address,
    },
    partiesReversed: support.partiesReversed,
    resolution: support.resolution,
    environment: support.environment,
  };
}

const MAX_DESCRIPTION = 1000;

/** The expense a documento soporte records: what was bought, on its day, the document itself as the receipt. */
function supportedExpense(normalized: NormalizedDocument, storageKey: string, fileName: string): DocumentExpenses {
  const bought = normalized.lineItems.map((line) => line.name).join('; ');
  return {
    origin: 'support_document',
    category: null,
    costCenter: null,
    description: Array.from(bought).slice(0, MAX_DESCRIPTION).join('') || null,
    spentOn: normalized.supportDocument?.issueDate ?? null,
    receiptUrl: null,
    receiptStorageKey: storageKey,
    receiptFileName: fileName,
    reimbursedPerson: null,
  };
}

/** The exchange-rate columns of a new document: the parser checked the rate leads from its currency to the local one. */
function storedExchangeRate(normalized: NormalizedDocument, fileName: string) {
  const rate = normalized.exchangeRate;
  return {
    exchangeRate: rate?.rate ?? null,
    exchangeRateSourceCurrency: rate ? knownCurrency(rate.sourceCurrency, fileName) : null,
    exchangeRateTargetCurrency: rate ? knownCurrency(rate.targetCurrency, fileName) : null,
    exchangeRateDate: rate?.date ?? null,
  };
}

function knownCurrency(code: string, fileName: string): Currency {
  if ((CURRENCIES as readonly string[]).includes(code)) return code as Currency;
  throw new ImportRejected(
    'unsupported_currency',
    `${fileName}: currency ${code} is not one of ${CURRENCIES.join(', ')}`,
  );
}

/**
 * A fiscal reference names one document: a file that carries a known CUFE or UUID but says something else (another
 * number, issuer, customer, date, amount or line) is not a re-import but a conflict (a forged or corrupted file, or a
 * supplier's error). It is refused and logged on the stored document, once per content. The digest kept at import
 * answers at once when the file says the same; otherwise the stored file, read again by this parser, decides and names
 * what differs, so that a document imported before the digest was kept, or a parser that reads more than it did, never
 * turns an honest copy into a conflict.
 */
async function refuseConflict(
  deps: ImportDeps,
  em: EntityManager,
  stored: KnownDocument,
  normalized: NormalizedDocument,
  input: ImportFiscalDocumentInput & { context: FiscalParseContext },
): Promise<void> {
  const incoming = contentHash(normalized);
  if (stored.contentHash === incoming) return;
  const before = await storedDocument(deps, stored, input.context);
  const differences: (ContentPart | 'content')[] = before
    ? contentDifferences(before, normalized)
    : stored.contentHash
      ? ['content']
      : legacyDifferences(stored, normalized);
  if (differences.length === 0) {
    await writeContentHash(em, stored, incoming);
    return;
  }
  const storedIssuer = stored.issuer;
  const incomingIssuer = `${normalized.supplier.identifierType} ${normalized.supplier.identifierNumber}`;
  const storedTotal = `${centsToDecimal(stored.amountCents)} ${stored.currency}`;
  const incomingTotal = `${centsToDecimal(normalized.totals.totalCents)} ${normalized.currency}`;
  await writeConflictLog(em, stored, {
    event: 'document.import_refused',
    actor: { type: 'system', source: input.source },
    metadata: {
      code: 'fiscal_reference_conflict',
      file_name: input.fileName,
      differences,
      document_number: normalized.documentNumber,
      issuer: incomingIssuer,
      total: incomingTotal,
      content_hash: incoming,
    },
  });
  throw new ImportRejected(
    'fiscal_reference_conflict',
    `${input.fileName}: fiscal reference ${normalized.fiscalReference} is already document ${stored.id} ` +
      `(number ${stored.documentNumber}, issuer ${storedIssuer ?? 'unknown'}, total ${storedTotal}), ` +
      `but this file has number ${normalized.documentNumber}, issuer ${incomingIssuer}, total ${incomingTotal}, ` +
      `and differs in: ${differences.join(', ')}`,
  );
}

/** The stored document as its file reads today; null when the file is gone or no longer reads. */
async function storedDocument(
  deps: ImportDeps,
  stored: KnownDocument,
  context: FiscalParseContext,
): Promise<NormalizedDocument | null> {
  if (!stored.sourceXmlPath) return null;
  const file = await deps.storage.get(stored.sourceXmlPath);
  if (!file) return null;
  try {
    const parsed = parseFiscalDocument(file.body, stored.sourceXmlPath, context);
    return parsed.kind === 'document' ? parsed.document : null;
  } catch (error) {
    if (error instanceof FiscalDocumentError) return null;
    throw error;
  }
}

/** Without its file or digest, what the document row holds: number, issuer, total and currency. */
function legacyDifferences(stored: KnownDocument, normalized: NormalizedDocument): ContentPart[] {
  const incomingIssuer = `${normalized.supplier.identifierType} ${normalized.supplier.identifierNumber}`;
  return [
    ...(stored.documentNumber === normalized.documentNumber ? [] : (['number'] as const)),
    ...(stored.issuer === null || stored.issuer === incomingIssuer ? [] : (['issuer'] as const)),
    ...(stored.amountCents === normalized.totals.totalCents && stored.currency === normalized.currency
      ? []
      : (['amounts'] as const)),
  ];
}

/** A Mexican payment receipt: recorded against each document of the company it pays. */
async function importPaymentComplement(
  em: EntityManager,
  company: Company,
  complement: NormalizedPaymentComplement,
): Promise<ImportFiscalDocumentResult> {
  const related = complement.payments.flatMap((payment) => payment.relatedDocuments.map((paid) => ({ payment, paid })));
  const documents = await em.find(Document, {
    fiscalReference: { $in: related.map(({ paid }) => paid.fiscalReference) },
  });
  const byReference = new Map(documents.map((document) => [document.fiscalReference, document]));
  const existing = await em.find(PaymentReceiptComplement, { complementFiscalUuid: complement.fiscalReference });
  const appliedTo: string[] = [];
  for (const { payment, paid } of related) {
    const document = byReference.get(paid.fiscalReference);
    if (!document) continue;
    appliedTo.push(document.id);
    if (existing.some((row) => row.document.id === document.id && row.installmentNumber === paid.installment)) continue;
    em.create(PaymentReceiptComplement, {
      company,
      document,
      complementFiscalUuid: complement.fiscalReference,
      paymentDate: new Date(payment.paidAt),
      amountCents: payment.amountCents,
      currency: (CURRENCIES as readonly string[]).includes(paid.currency)
        ? (paid.currency as Currency)
        : document.currency,
      installmentNumber: paid.installment,
      previousBalanceCents: paid.previousBalanceCents,
      paidCents: paid.paidCents,
      outstandingBalanceCents: paid.outstandingCents,
    });
  }
  await em.flush();
  return {
    kind: 'payment_complement',
    created: existing.length === 0 && appliedTo.length > 0,
    fiscalReference: complement.fiscalReference,
    documentNumber: complement.documentNumber,
    appliedTo: [...new Set(appliedTo)],
    unknownDocuments: related
      .filter(({ paid }) => !byReference.has(paid.fiscalReference))
      .map(({ paid }) => paid.fiscalReference),
  };
}
