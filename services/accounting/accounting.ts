import { LockMode } from '@mikro-orm/core';
import { Refusal } from '../../platform/refusal.ts';
import { z } from 'zod';
import { fileUrl } from '../../read-models/files.ts';
import {
  AccountingEntry,
  type JournalEntry,
  type MissingCatalogEntry,
} from '../../db/accounting/accounting-entry.entity.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { LineItem } from '../../db/documents/line-item.entity.ts';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import { ErpProduct } from '../../db/erp/product.entity.ts';
import { ErpTax } from '../../db/erp/tax.entity.ts';
import { ErpVendor } from '../../db/erp/vendor.entity.ts';
import { companyEm, systemEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { installmentsOf } from '../../db/payments/payable-schedule.ts';
import { documentDate } from '../../fiscal/country-dates.ts';
import { recordEvent, undeliveredEventsOf } from '../webhooks/events.ts';
import type { Processes } from '../processes.ts';
import { documentAccountedPayload } from '../webhooks/payloads.ts';
import { proposeJournal, type Proposal } from './journal-proposal.ts';
import { proposedCrossings } from '../payments/advances.ts';

const Cents = z.number().int();
// A key the file leaves out is sent as the contract lists it anyway: `null`, `[]` or `{}`.
const orNull = <T extends z.ZodType>(schema: T) => schema.nullable().default(null);
const Line = z
  .object({
    source: z.enum(['document', 'agent', 'front', 'purchase_order', 'goods_receipt']),
    description: orNull(z.string()),
    book_account_external_id: z.string().min(1),
    debit_cents: orNull(Cents.min(0)),
    credit_cents: orNull(Cents.min(0)),
    quantity: orNull(z.number()),
    unit_price_cents: orNull(Cents),
    discount: orNull(z.number()),
    discount_rate: orNull(z.number()),
    product_external_id: orNull(z.string()),
    vendor_external_id: orNull(z.string()),
    cost_centers: z.array(z.object({ cost_center_external_id: z.string(), percentage: z.number() })).default([]),
    warehouses: z.array(z.object({ warehouse_external_id: z.string() })).default([]),
    taxes: z
      .array(
        z.object({
          tax_external_id: z.string(),
          base_cents: Cents,
          amount_cents: Cents,
          type: orNull(z.string()),
        }),
      )
      .default([]),
    purchase_order_line_external_id: orNull(z.string()),
    goods_receipt_line_external_id: orNull(z.string()),
    metadata: z.record(z.string(), z.unknown()).default({}),
  })
  .refine(
    (line) => (line.debit_cents === null) !== (line.credit_cents === null),
    'Exactly one of debit_cents and credit_cents',
  );

/**
 * The voucher an operator (or the integrator's tooling) gives to `ops documents account --file`: the wire shape of
 * `accounting_entry`. Every key the contract lists for the voucher, its lines and payment lines is sent, whether the
 * file has it or not.
 */
export const EntryFile = z.object({
  summary: z.record(z.string(), z.unknown()).optional(),
  journal_entry: z.object({
    status: z.enum(['posted', 'cancelled']).default('posted'),
    document_number: z.string().optional(),
    document_type_external_id: orNull(z.string()),
    vendor_external_id: orNull(z.string()),
    issue_date: z.iso.date().optional(),
    posting_date: orNull(z.iso.date()),
    expiration_date: orNull(z.iso.date()),
    cost_center_external_id: orNull(z.string()),
    description: orNull(z.string()),
    erp_journal_entry_lines: z.array(Line).min(1),
    payment_lines: z.array(
      z.object({
        book_account_external_id: z.string(),
        book_account_code: orNull(z.string()),
        book_account_name: orNull(z.string()),
        amount_cents: Cents,
        due_date: z.iso.date(),
        quota_number: z.number().int().min(1),
        payment_method_external_id: orNull(z.string()),
        cost_center_external_id: orNull(z.string()),
      }),
    ),
    erp_journal_entry_taxes: z.array(z.record(z.string(), z.unknown())).default([]),
  }),
  advance_crossings: z
    .array(
      z.object({
        external_move_line_id: z.string(),
        external_move_id: orNull(z.string()),
        external_payment_id: orNull(z.string()),
        amount_cents: Cents,
        original_amount_cents: Cents,
        outstanding_amount_cents: Cents,
        currency: z.string(),
        advance_date: z.iso.date(),
        status: orNull(z.string()),
        reference: orNull(z.string()),
      }),
    )
    .default([]),
});

export class AccountingRefused extends Refusal {}

export interface AccountingDeps {
  orm: Orm;
  processes: Processes;
  publicUrl: string;
}

const CROSSING_SOURCES = new Set(['purchase_order', 'goods_receipt']);

/**
 * Accounts a document: records its posted voucher (from a file, or proposed by the agent from its line items and the
 * company's ERP catalogs), and hands it to the integrator's ERP through `document.accounted`. With `retry`, the
 * posted voucher is handed over again (after the ERP refused it). With `companyId`, another company's document is
 * not found.
 */
export async function accountDocument(
  deps: AccountingDeps,
  input: { documentId: string; companyId?: string; entry?: unknown; retry?: boolean },
) {
  const found = await systemEm(deps.orm).findOne(Document, { id: input.documentId });
  if (!found || (input.companyId !== undefined && found.company.id !== input.companyId))
    throw new AccountingRefused('document_not_found', `No document with reference ${input.documentId}`);
  const em = companyEm(deps.orm, found.company.id);
  // A run that stopped between its commit and starting the hand-off (Temporal down, a crash) left the delivery
  // unstarted: any later run starts it (a no-op when it runs), before saying what it thinks of its own request.
  const handingOver = await em.findOne(AccountingEntry, {
    document: found.id,
    status: 'posted',
    registrationState: 'registering',
  });
  if (handingOver)
    await deps.processes.startDeliveries(await undeliveredEventsOf(em, handingOver.id, 'document.accounted'));
  const { entry, deliveries } = await em.transactional(async (tx) => {
    const document = await tx.findOneOrFail(Document, { id: input.documentId }, { populate: ['beneficiary'] });
    // Locked: two retries at once would otherwise both hand the voucher over.
    const posted = await tx.findOne(
      AccountingEntry,
      { document, status: 'posted' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (input.retry) {
      if (!posted)
        throw new AccountingRefused('not_accounted', 'The document has no posted voucher to hand over again');
      if (posted.registrationState === 'registered')
        throw new AccountingRefused('already_registered', 'The ERP has already registered this voucher');
      if (posted.registrationState === 'registering')
        throw new AccountingRefused('registration_in_progress', 'The voucher is being handed over right now');
      if (posted.registrationState === 'awaiting_catalog') {
        const resumed = await proposeHeld(tx, document, posted, deps.publicUrl);
        if (!resumed) throw new AccountingRefused('awaiting_catalog', awaitingMessage(posted.missingCatalogEntries));
        return resumed;
      }
      return handOver(tx, document, posted, deps.publicUrl);
    }
    if (posted)
      throw new AccountingRefused(
        'already_accounted',
        'The document already has a posted voucher; use --retry to hand it over again',
      );
    const parsed = input.entry === undefined ? null : EntryFile.safeParse(input.entry);
    if (parsed && !parsed.success) throw new AccountingRefused('invalid_entry', z.prettifyError(parsed.error));
    const proposal = parsed
      ? { journal: completeJournal(parsed.data.journal_entry, document), missing: [] }
      : await agentJournal(tx, document);
    const journal = proposal.journal;
    const entry = tx.create(AccountingEntry, {
      company: document.company,
      document,
      status: journal?.status ?? 'posted',
      registrationState: journal ? 'pending' : 'awaiting_catalog',
      accountedAt: new Date(),
      summary: parsed?.data.summary ?? (journal ? summarize(journal) : {}),
      journalEntry: journal,
      missingCatalogEntries: proposal.missing,
      advanceCrossings: parsed ? parsed.data.advance_crossings : await proposedCrossings(tx, document),
      registrationPayload: parsed ? (input.entry as Record<string, unknown>) : { proposed_by: 'agent' },
      isCrossed: journal?.erp_journal_entry_lines.some((line) => CROSSING_SOURCES.has(line.source)) ?? false,
    });
    tx.create(ActivityLog, {
      company: document.company,
      document,
      event: 'document.updated',
      actor: parsed ? { type: 'system', source: 'operator' } : { type: 'agent', name: 'accounting agent' },
      metadata: journal
        ? { change: 'accounted', accounting_entry: entry.id, status: entry.status }
        : { change: 'accounting_awaiting_catalog', accounting_entry: entry.id, missing: proposal.missing },
    });
    // Only posted vouchers are notified; one the catalog cannot map yet waits for the ERP to sync what it lacks.
    return entry.status === 'posted' && journal
      ? handOver(tx, document, entry, deps.publicUrl)
      : { entry, deliveries: [] };
  });
  await deps.processes.startDeliveries(deliveries);
  return { entry, deliveries: deliveries.length };
}

const awaitingMessage = (missing: MissingCatalogEntry[]) =>
  `The voucher waits for the ERP catalog to sync: ${missing.map((entry) => `${entry.role} book account (${entry.description})`).join('; ')}`;

/** Most vouchers one book-account sync lets through; the rest go with the next sync or a retry. */
const RESUMED_PER_SYNC = 100;

/**
 * After the ERP synced book accounts (in the same transaction), proposes the company's waiting vouchers again and
 * hands over those the catalog now maps. The caller starts the deliveries once the transaction commits.
 */
export async function resumeVouchersAwaitingCatalog(
  em: EntityManager,
  companyId: string,
  publicUrl: string,
): Promise<DeliveryToStart[]> {
  // Locked, skipping those a concurrent sync is resuming, so that no voucher is handed over twice.
  const waiting = await em.find(
    AccountingEntry,
    { company: companyId, status: 'posted', registrationState: 'awaiting_catalog' },
    { orderBy: { createdAt: 'asc' }, limit: RESUMED_PER_SYNC, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
  await em.populate(waiting, ['document.beneficiary']);
  const deliveries: DeliveryToStart[] = [];
  for (const entry of waiting) {
    const resumed = await proposeHeld(em, entry.document, entry, publicUrl);
    if (resumed) deliveries.push(...resumed.deliveries);
  }
  return deliveries;
}

/** A waiting voucher proposed again: handed over when the catalog now maps it, else still waiting (null). */
async function proposeHeld(em: EntityManager, document: Document, entry: AccountingEntry, publicUrl: string) {
  const proposal = await agentJournal(em, document);
  if (!proposal.journal) {
    entry.missingCatalogEntries = proposal.missing;
    return null;
  }
  entry.journalEntry = proposal.journal;
  entry.missingCatalogEntries = [];
  entry.summary = summarize(proposal.journal);
  entry.registrationState = 'pending';
  em.create(ActivityLog, {
    company: document.company,
    document,
    event: 'document.updated',
    actor: { type: 'agent', name: 'accounting agent' },
    metadata: { change: 'accounted', accounting_entry: entry.id, status: entry.status, after: 'catalog_sync' },
  });
  return handOver(em, document, entry, publicUrl);
}

async function handOver(em: EntityManager, document: Document, entry: AccountingEntry, publicUrl: string) {
  entry.registrationState = 'registering';
  const filePath = document.filePath ?? (document.sourceXmlPath ? fileUrl(publicUrl, document.sourceXmlPath) : null);
  const deliveries = await recordEvent(
    em,
    document.company,
    'document.accounted',
    entry.id,
    documentAccountedPayload(document, document.beneficiary ?? null, entry, filePath),
  );
  if (deliveries.length === 0) entry.registrationState = 'pending';
  return { entry, deliveries };
}

function completeJournal(journal: z.output<typeof EntryFile>['journal_entry'], document: Document): JournalEntry {
  return {
    ...journal,
    document_number: journal.document_number ?? document.documentNumber,
    issue_date: journal.issue_date ?? documentDate(document.issueDate ?? document.createdAt, document),
  } as JournalEntry;
}

function summarize(journal: JournalEntry): Record<string, number> {
  const debit = journal.erp_journal_entry_lines.reduce((sum, line) => sum + (line.debit_cents ?? 0), 0);
  const credit =
    journal.erp_journal_entry_lines.reduce((sum, line) => sum + (line.credit_cents ?? 0), 0) +
    journal.payment_lines.reduce((sum, line) => sum + line.amount_cents, 0);
  return {
    debit_cents: debit,
    credit_cents: credit,
    lines: journal.erp_journal_entry_lines.length,
    payment_lines: journal.payment_lines.length,
  };
}

/** Reads what the accounting agent needs and lets it propose the voucher. */
async function agentJournal(em: EntityManager, document: Document): Promise<Proposal> {
  const [lines, products, taxes, accounts] = await Promise.all([
    em.find(LineItem, { document }, { orderBy: { position: 'asc' } }),
    em.find(ErpProduct, { isActive: true }),
    em.find(ErpTax, { isActive: true }),
    em.find(ErpBookAccount, { isActive: true }, { orderBy: { code: 'asc' } }),
  ]);
  const vendor = document.beneficiary
    ? await em.findOne(ErpVendor, { identifierNumber: document.beneficiary.identifierNumber, isActive: true })
    : null;
  const installments = await installmentsOf(em, document);
  return proposeJournal({ document, lines, products, taxes, accounts, vendor, installments, postedAt: new Date() });
}
