import type { FiscalLineItem, FiscalParty } from '../../fiscal/normalized-document.ts';
import type { Country } from '../companies/company.entity.ts';
import { uuidv7 } from '../ids.ts';
import type { Currency } from '../money.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement, type Transaction } from '../prepared.ts';
import type { Subscriber } from '../webhooks/webhook-delivery.repository.ts';
import type { FlowDefinition } from '../workflow-steps/workflow-flow.entity.ts';
import type { LineItemAdjustment } from './line-item.entity.ts';
import type { Actor } from './activity-log.entity.ts';
import type {
  ApprovalStatus,
  DocumentCreatedBy,
  DocumentExpenses,
  DocumentSupport,
  DocumentType,
  FiscalMetadata,
} from './document.entity.ts';

// An imported fiscal document as plain statements: one reads the company, one the document its fiscal reference may
// already name and, in the import's transaction, one writes the supplier, the document, its lines and its log. Every
// file a company receives goes through here (the CLI, fiscal synchronisation, mail), so it does not go through the
// ORM's unit of work. Every table is constrained by the company as well as by its id.

/** The company as an import reads it. */
export interface ImportingCompany {
  id: string;
  country: Country;
  taxId: string | null;
}

export async function readImportingCompany(em: EntityManager, companyId: string): Promise<ImportingCompany | null> {
  const [company] = await runStatement<ImportingCompany>(
    em,
    `select c."id", c."country", c."tax_id" as "taxId" from "companies" as c where c."id" = :companyId`,
    { companyId },
  );
  return company ?? null;
}

/** A document of the company as an import compares a file with it and starts its lifecycle. */
export interface KnownDocument {
  id: string;
  companyId: string;
  type: DocumentType;
  documentNumber: string;
  fiscalReference: string | null;
  amountCents: bigint;
  currency: Currency;
  approvalStatus: ApprovalStatus;
  /** `identifier_type identifier_number` of its beneficiary; null without one. */
  issuer: string | null;
  supplierName: string | null;
  /** SHA-256 of what its file says; null when it was imported before the digest was kept. */
  contentHash: string | null;
  /** Storage key of its fiscal XML. */
  sourceXmlPath: string | null;
}

/** The company's document with this fiscal reference (a CUFE, CUDS or UUID), or null. */
export async function readKnownDocument(
  em: EntityManager,
  companyId: string,
  fiscalReference: string,
): Promise<KnownDocument | null> {
  const [document] = await runStatement<Omit<KnownDocument, 'amountCents'> & { amountCents: string }>(
    em,
    `select d."id", d."company_id" as "companyId", d."type", d."document_number" as "documentNumber",
       d."fiscal_reference" as "fiscalReference", d."amount_cents"::text as "amountCents", d."currency",
       d."approval_status" as "approvalStatus", b."identifier_type" || ' ' || b."identifier_number" as "issuer",
       b."name" as "supplierName",
       d."content_hash" as "contentHash", d."source_xml_path" as "sourceXmlPath"
     from "documents" as d
     left join "beneficiaries" as b on b."id" = d."beneficiary_id" and b."company_id" = d."company_id"
     where d."company_id" = :companyId and d."fiscal_reference" = :fiscalReference`,
    { companyId, fiscalReference },
  );
  return document ? { ...document, amountCents: BigInt(document.amountCents) } : null;
}

/** The issuer of a file: its beneficiary, found by its identifier or created. */
export type ImportedSupplier = Pick<
  FiscalParty,
  'name' | 'identifierType' | 'identifierNumber' | 'email' | 'phone' | 'address'
>;

/** A line of the file, its adjustments as `line_items.adjustments` keeps them. */
export type ImportedLine = Omit<FiscalLineItem, 'adjustments'> & { adjustments: LineItemAdjustment[] };

/** Everything an import writes. */
export interface ImportedDocumentWrite {
  companyId: string;
  documentId: string;
  at: Date;
  supplier: ImportedSupplier;
  document: {
    country: Country;
    documentNumber: string;
    type: DocumentType;
    amountCents: bigint;
    currency: Currency;
    subtotalCents: bigint | null;
    taxTotalCents: bigint | null;
    withholdingTotalCents: bigint | null;
    prepaidCents: bigint | null;
    prepaidConvention: string | null;
    exchangeRate: string | null;
    exchangeRateSourceCurrency: Currency | null;
    exchangeRateTargetCurrency: Currency | null;
    exchangeRateDate: string | null;
    issueDate: Date;
    expirationDate: Date | null;
    fiscalReference: string;
    fiscalMetadata: FiscalMetadata;
    contentHash: string;
    purchaseOrder: string | null;
    sourceXmlPath: string;
    createdBy: DocumentCreatedBy;
    documentSupport: DocumentSupport | null;
    expenses: DocumentExpenses | null;
  };
  lines: ImportedLine[];
  log: { event: string; actor: Actor; metadata: Record<string, unknown> };
}

/**
 * What the write did: `written` false when it wrote nothing, because the fiscal reference became a document or the
 * supplier a beneficiary in a transaction that committed after this one began (the import reads again and decides);
 * with the company's active subscriptions to `document.created` and its flow, which the new document starts on.
 */
export interface ImportedDocumentWritten {
  written: boolean;
  subscribers: Subscriber[];
  flow: FlowDefinition | null;
}

const json = (value: unknown) =>
  JSON.stringify(value, (_, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));

/**
 * Writes an imported document in one statement: its supplier (found by identifier, its name and contact details
 * updated, or created), the supplier's new contacts, the document, its lines and its log entry.
 */
export async function writeImportedDocument(
  tx: Transaction,
  write: ImportedDocumentWrite,
): Promise<ImportedDocumentWritten> {
  const { supplier, document } = write;
  const contacts = (
    [
      ['email', supplier.email],
      ['phone', supplier.phone],
    ] as const
  ).flatMap(([type, value]) => (value ? [{ id: uuidv7(), type, value }] : []));
  const [row] = await runStatement<ImportedDocumentWritten>(
    tx,
    `with "found" as (
       select b."id" from "beneficiaries" as b
       where b."company_id" = :companyId and b."identifier_type" = :identifierType
         and b."identifier_number" = :identifierNumber
     ),
     "inserted" as (
       insert into "beneficiaries" ("id", "company_id", "name", "type", "email", "phone_number", "identifier_type",
         "identifier_number", "fiscal_address", "created_at", "updated_at")
       select cast(:beneficiaryId as uuid), :companyId, :name, 'supplier', :email, :phone, :identifierType,
         :identifierNumber, :address, cast(:at as timestamptz), cast(:at as timestamptz)
       where not exists (select from "found")
       on conflict ("company_id", "identifier_type", "identifier_number") do nothing
       returning "id"
     ),
     "supplier" as (select "id" from "found" union all select "id" from "inserted"),
     "updated" as (
       update "beneficiaries" as b set
         "name" = coalesce(nullif(:name, ''), b."name"),
         "email" = coalesce(:email, b."email"),
         "phone_number" = coalesce(:phone, b."phone_number"),
         "fiscal_address" = coalesce(:address, b."fiscal_address"),
         "updated_at" = cast(:at as timestamptz)
       from "found" where b."id" = "found"."id" and b."company_id" = :companyId
         and (b."name", b."email", b."phone_number", b."fiscal_address") is distinct from
           (coalesce(nullif(:name, ''), b."name"), coalesce(:email, b."email"), coalesce(:phone, b."phone_number"),
            coalesce(:address, b."fiscal_address"))
     ),
     "contacts" as (
       insert into "beneficiary_contacts" ("id", "company_id", "beneficiary_id", "type", "value", "created_at")
       select c."id", :companyId, "supplier"."id", c."type"::contact_type, c."value", cast(:at as timestamptz)
       from jsonb_to_recordset(cast(:contacts as jsonb)) as c("id" uuid, "type" text, "value" text)
       cross join "supplier"
       on conflict ("beneficiary_id", "type", "value") do nothing
     ),
     "document" as (
       insert into "documents" ("id", "company_id", "beneficiary_id", "country", "document_number", "type",
         "amount_cents", "currency", "subtotal_cents", "tax_total_cents", "withholding_total_cents", "prepaid_cents",
         "prepaid_convention", "exchange_rate", "exchange_rate_source_currency", "exchange_rate_target_currency",
         "exchange_rate_date", "issue_date", "expiration_date", "fiscal_reference", "fiscal_metadata", "content_hash",
         "source_xml_path", "purchase_order", "created_by", "document_support", "expenses", "created_at", "updated_at")
       select cast(:documentId as uuid), :companyId, "supplier"."id", cast(:country as country), :documentNumber,
         cast(:type as document_type), cast(:amountCents as bigint), cast(:currency as currency),
         cast(:subtotalCents as bigint), cast(:taxTotalCents as bigint), cast(:withholdingTotalCents as bigint),
         cast(:prepaidCents as bigint), cast(:prepaidConvention as prepaid_convention), cast(:exchangeRate as numeric),
         cast(:exchangeRateSourceCurrency as currency), cast(:exchangeRateTargetCurrency as currency),
         cast(:exchangeRateDate as date), cast(:issueDate as timestamptz), cast(:expirationDate as timestamptz),
         :fiscalReference, cast(:fiscalMetadata as jsonb), :contentHash, :sourceXmlPath, :purchaseOrder,
         cast(:createdBy as jsonb), cast(:documentSupport as jsonb), cast(:expenses as jsonb), cast(:at as timestamptz), cast(:at as timestamptz)
       from "supplier"
       on conflict ("company_id", "fiscal_reference") do nothing
       returning "id"
     ),
     "log" as (
       insert into "activity_logs" ("id", "company_id", "document_id", "event", "actor", "metadata", "created_at")
       select cast(:logId as uuid), :companyId, "document"."id", :event, cast(:actor as jsonb),
         cast(:logMetadata as jsonb), cast(:at as timestamptz)
       from "document"
     )
     select exists (select from "document") as "written",
       (select f."definition" from "workflow_flows" as f where f."company_id" = :companyId) as "flow",
       coalesce((select json_agg(json_build_object('id', w."id", 'retries', w."retries",
           'timeoutSeconds', w."timeout_seconds") order by w."created_at")
         from "webhook_subscriptions" as w
         where w."company_id" = :companyId and w."event" = 'document.created' and w."is_active"), '[]') as "subscribers"`,
    {
      companyId: write.companyId,
      documentId: write.documentId,
      at: write.at,
      beneficiaryId: uuidv7(),
      name: supplier.name,
      identifierType: supplier.identifierType,
      identifierNumber: supplier.identifierNumber,
      email: supplier.email,
      phone: supplier.phone,
      address: supplier.address,
      contacts: JSON.stringify(contacts),
      country: document.country,
      documentNumber: document.documentNumber,
      type: document.type,
      amountCents: document.amountCents.toString(),
      currency: document.currency,
      subtotalCents: document.subtotalCents?.toString() ?? null,
      taxTotalCents: document.taxTotalCents?.toString() ?? null,
      withholdingTotalCents: document.withholdingTotalCents?.toString() ?? null,
      prepaidCents: document.prepaidCents?.toString() ?? null,
      prepaidConvention: document.prepaidConvention,
      exchangeRate: document.exchangeRate,
      exchangeRateSourceCurrency: document.exchangeRateSourceCurrency,
      exchangeRateTargetCurrency: document.exchangeRateTargetCurrency,
      exchangeRateDate: document.exchangeRateDate,
      issueDate: document.issueDate,
      expirationDate: document.expirationDate,
      fiscalReference: document.fiscalReference,
      fiscalMetadata: json(document.fiscalMetadata),
      contentHash: document.contentHash,
      sourceXmlPath: document.sourceXmlPath,
      purchaseOrder: document.purchaseOrder,
      createdBy: json(document.createdBy),
      documentSupport: document.documentSupport ? json(document.documentSupport) : null,
      expenses: document.expenses ? json(document.expenses) : null,
      logId: uuidv7(),
      event: write.log.event,
      actor: json(write.log.actor),
      logMetadata: json(write.log.metadata),
    },
  );
  if (row!.written) await writeLines(tx, write);
  return row!;
}

/** Lines per statement: a document of thousands of lines is written in parts, never as one JSON text of megabytes. */
const LINES_PER_STATEMENT = 250;

async function writeLines(tx: Transaction, write: ImportedDocumentWrite): Promise<void> {
  for (let from = 0; from < write.lines.length; from += LINES_PER_STATEMENT) {
    const lines = write.lines.slice(from, from + LINES_PER_STATEMENT);
    await runStatement(
      tx,
      `insert into "line_items" ("id", "company_id", "document_id", "position", "name", "description", "code",
         "quantity", "unit_code", "unit_price_cents", "currency", "subtotal_cents", "total_cents", "metadata",
         "adjustments", "created_at", "updated_at")
       select l."id", :companyId, cast(:documentId as uuid), l."position", l."name", l."description", l."code",
         l."quantity", l."unitCode", l."unitPriceCents", cast(:currency as currency), l."subtotalCents",
         l."totalCents", l."metadata", l."adjustments", cast(:at as timestamptz), cast(:at as timestamptz)
       from jsonb_to_recordset(cast(:lines as jsonb)) as l("id" uuid, "position" int, "name" text,
         "description" text, "code" varchar, "quantity" numeric, "unitCode" varchar, "unitPriceCents" bigint,
         "subtotalCents" bigint, "totalCents" bigint, "metadata" jsonb, "adjustments" jsonb)`,
      {
        companyId: write.companyId,
        documentId: write.documentId,
        currency: write.document.currency,
        at: write.at,
        lines: json(lines.map((line) => ({ id: uuidv7(), ...line }))),
      },
    );
  }
}

/** Keeps the digest of what a document's file says, once a later file was found to say the same. */
export async function writeContentHash(
  em: EntityManager,
  document: Pick<KnownDocument, 'id' | 'companyId'>,
  contentHash: string,
): Promise<void> {
  await runStatement(
    em,
    `update "documents" set "content_hash" = :contentHash
     where "company_id" = :companyId and "id" = :documentId and "content_hash" is distinct from :contentHash`,
    { companyId: document.companyId, documentId: document.id, contentHash },
  );
}

/**
 * Logs on a document a file refused for carrying its fiscal reference with other content: once per content, however
 * often that file comes back (a sync that reads the mailbox again, a retried import).
 */
export async function writeConflictLog(
  em: EntityManager,
  document: Pick<KnownDocument, 'id' | 'companyId'>,
  log: { event: string; actor: Actor; metadata: Record<string, unknown> & { content_hash: string } },
): Promise<void> {
  await runStatement(
    em,
    `insert into "activity_logs" ("id", "company_id", "document_id", "event", "actor", "metadata", "created_at")
     select cast(:logId as uuid), cast(:companyId as uuid), cast(:documentId as uuid), cast(:event as varchar),
       cast(:actor as jsonb), cast(:metadata as jsonb), now()
     where not exists (
       select from "activity_logs" as l
       where l."company_id" = cast(:companyId as uuid) and l."document_id" = cast(:documentId as uuid)
         and l."event" = cast(:event as varchar) and l."metadata" ->> 'content_hash' = cast(:contentHash as text)
     )`,
    {
      logId: uuidv7(),
      companyId: document.companyId,
      documentId: document.id,
      event: log.event,
      actor: json(log.actor),
      metadata: json(log.metadata),
      contentHash: log.metadata.content_hash,
    },
  );
}
