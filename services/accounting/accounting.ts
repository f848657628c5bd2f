import { LockMode } from '@mikro-orm/core';
import { Refusal } from '../../platform/refusal.ts';
import { z } from 'zod';
import { fileUrl } from '../../read-models/files.ts';
import {
  AccountingEntry,
  type JournalEntry,
  type MissingCatalogEntry,
  type RegistrationState,
} from '../../db/accounting/accounting-entry.entity.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
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
import type { LifecycleSubject, Processes } from '../processes.ts';
import { lifecycleSubjectOf } from '../documents/document-processes.ts';
import { documentAccountedPayload } from '../webhooks/payloads.ts';
import { proposeJournal, taughtBy, type Proposal } from './journal-proposal.ts';
import {
  bookAccountQuestion,
  decisionsOf,
  orderReviewQuestion,
  type AccountingQuestion,
} from './accounting-questions.ts';
import { accountingSettingsOf } from '../../db/accounting/accounting-settings.ts';
import { learnRules, normalizedDescription, rulesFor } from '../../db/accounting/book-account-rules.ts';
import { ErpPurchaseOrder } from '../../db/erp/purchase-order.entity.ts';
import { activeSubscribers } from '../../db/webhooks/webhook-delivery.repository.ts';
import { ActivityLog, type Actor } from '../../db/documents/activity-log.entity.ts';
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
/** A voucher that waits for a person's answer on a step of the document's flow. */
const AWAITING_PERSON = new Set<RegistrationState>(['awaiting_classification', 'awaiting_order_review']);

/** What an accounting run did: the voucher (none when automatic accounting is off for the company), and what it asks. */
export interface Accounted {
  entry: AccountingEntry | null;
  deliveries: number;
  question: AccountingQuestion | null;
}

/**
 * Accounts a document: records its posted voucher (from a file, or proposed by the agent from its line items, the
 * company's ERP catalogs and what its people decided before), and hands it to the integrator's ERP through
 * `document.accounted`. With `retry`, the posted voucher is handed over again (after the ERP refused it). With
 * `automatic` (the document's lifecycle, once it is approved), nothing happens unless the company accounts by itself
 * and receives `document.accounted`, and a voucher already recorded is left as it is unless it waits for a person.
 * With `companyId`, another company's document is not found. When the agent cannot tell, the answer names the
 * question a person must decide; the lifecycle asks it (and is told to, when the caller is not the lifecycle).
 */
export async function accountDocument(
  deps: AccountingDeps,
  input: { documentId: string; companyId?: string; entry?: unknown; retry?: boolean; automatic?: boolean },
): Promise<Accounted> {
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
  const outcome = await em.transactional(async (tx): Promise<Outcome> => {
    const document = await tx.findOneOrFail(Document, { id: input.documentId }, { populate: ['beneficiary'] });
    // Locked: two retries at once would otherwise both hand the voucher over.
    const posted = await tx.findOne(
      AccountingEntry,
      { document, status: 'posted' },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (input.retry) return retried(tx, document, posted, deps.publicUrl);
    if (input.automatic) {
      // A voucher that waits for a person goes on once answered, whoever started it; the company's switch only
      // decides whether accounting starts by itself.
      const waitsForPerson = posted !== null && AWAITING_PERSON.has(posted.registrationState);
      if (posted && !waitsForPerson) return NOTHING;
      if (!waitsForPerson && !(await accountsByItself(tx, document.company.id))) return NOTHING;
    } else if (posted && !AWAITING_PERSON.has(posted.registrationState))
      throw new AccountingRefused(
        'already_accounted',
        'The document already has a posted voucher; use --retry to hand it over again',
      );
    const parsed = input.entry === undefined ? null : EntryFile.safeParse(input.entry);
    if (parsed && !parsed.success) throw new AccountingRefused('invalid_entry', z.prettifyError(parsed.error));
    const entry =
      posted ??
      tx.create(AccountingEntry, {
        company: document.company,
        document,
        status: parsed?.data.journal_entry.status ?? 'posted',
        registrationState: 'pending',
        accountedAt: new Date(),
        summary: {},
        journalEntry: null,
        missingCatalogEntries: [],
        advanceCrossings: parsed ? parsed.data.advance_crossings : await proposedCrossings(tx, document),
        registrationPayload: parsed ? (input.entry as Record<string, unknown>) : { proposed_by: 'agent' },
      });
    if (parsed) {
      entry.registrationPayload = input.entry as Record<string, unknown>;
      const journal = completeJournal(parsed.data.journal_entry, document);
      await learnFromVoucher(tx, document, entry, journal);
      const proposal = { status: 'ready' as const, journal, summary: parsed.data.summary };
      return settle(tx, document, entry, proposal, { type: 'system', source: 'operator' }, deps.publicUrl);
    }
    return settle(tx, document, entry, await agentProposal(tx, document), AGENT, deps.publicUrl);
  });
  await deps.processes.startDeliveries(outcome.deliveries);
  // The lifecycle asks its own questions; a question raised elsewhere (an operator's run) is handed to it.
  if (outcome.question && !input.automatic) await deps.processes.askAccounting(lifecycleSubjectOf(found));
  return { entry: outcome.entry, deliveries: outcome.deliveries.length, question: outcome.question };
}

/** What a voucher becomes: the agent's proposal or an operator's voucher, or held after a rejected review. */
type ToSettle =
  | Exclude<Proposal, { status: 'ready' }>
  | { status: 'ready'; journal: JournalEntry; summary?: Record<string, unknown> | undefined }
  | Held;
type Held = { status: 'held'; journal: null; reason: string };

type Outcome = { entry: AccountingEntry | null; deliveries: DeliveryToStart[]; question: AccountingQuestion | null };
const NOTHING: Outcome = { entry: null, deliveries: [], question: null };
const AGENT: Actor = { type: 'agent', name: 'accounting agent' };

/** Whether the company's vouchers go out by themselves: it has not turned that off, and it receives them. */
async function accountsByItself(em: EntityManager, companyId: string): Promise<boolean> {
  const settings = await accountingSettingsOf(em, companyId);
  return settings.automatic && (await activeSubscribers(em, 'document.accounted')).length > 0;
}

async function retried(
  tx: EntityManager,
  document: Document,
  posted: AccountingEntry | null,
  publicUrl: string,
): Promise<Outcome> {
  if (!posted) throw new AccountingRefused('not_accounted', 'The document has no posted voucher to hand over again');
  switch (posted.registrationState) {
    case 'registered':
      throw new AccountingRefused('already_registered', 'The ERP has already registered this voucher');
    case 'registering':
      throw new AccountingRefused('registration_in_progress', 'The voucher is being handed over right now');
    case 'awaiting_classification':
    case 'awaiting_order_review':
      throw new AccountingRefused(
        posted.registrationState,
        'The voucher waits for a person to decide the open step of the document (GET /workflow-steps/current)',
      );
    case 'held':
      throw new AccountingRefused('voucher_held', `The voucher is held: ${posted.failureMessage ?? ''}`.trim());
    case 'awaiting_catalog': {
      const resumed = await proposeHeld(tx, document, posted, publicUrl);
      if (!resumed) throw new AccountingRefused('awaiting_catalog', awaitingMessage(posted.missingCatalogEntries));
      return resumed;
    }
    default:
      // Refused before anything changes: with no receiver, the voucher stays as it was.
      if ((await activeSubscribers(tx, 'document.accounted')).length === 0)
        throw new AccountingRefused(
          'no_receiver',
          'No webhook subscription of the company receives document.accounted',
        );
      return { ...(await handOver(tx, document, posted, publicUrl)), question: null };
  }
}

/**
 * Records what a proposal says on the voucher and its log: a voucher handed over, or what it waits for (a person's
 * question, the ERP catalog, a review the person rejected).
 */
async function settle(
  tx: EntityManager,
  document: Document,
  entry: AccountingEntry,
  proposal: ToSettle,
  actor: Actor,
  publicUrl: string,
): Promise<Outcome> {
  const log = (metadata: Record<string, unknown>) =>
    tx.create(ActivityLog, {
      company: document.company,
      document,
      event: 'document.updated',
      actor,
      metadata: { accounting_entry: entry.id, ...metadata },
    });
  entry.journalEntry = proposal.journal;
  entry.missingCatalogEntries = proposal.status === 'awaiting_catalog' ? proposal.missing : [];
  entry.summary = ('summary' in proposal && proposal.summary) || (proposal.journal ? summarize(proposal.journal) : {});
  entry.isCrossed =
    proposal.journal?.erp_journal_entry_lines.some((line) => CROSSING_SOURCES.has(line.source)) ?? false;
  switch (proposal.status) {
    case 'ready':
      entry.registrationState = 'pending';
      log({ change: 'accounted', status: entry.status });
      if (entry.status !== 'posted') return { entry, deliveries: [], question: null };
      return { ...(await handOver(tx, document, entry, publicUrl)), question: null };
    case 'awaiting_catalog':
      entry.registrationState = 'awaiting_catalog';
      log({ change: 'accounting_awaiting_catalog', missing: proposal.missing });
      return { entry, deliveries: [], question: null };
    case 'held':
      entry.registrationState = 'held';
      entry.failureCode = 'purchase_order_mismatch';
      entry.failureMessage = proposal.reason;
      log({ change: 'accounting_held', reason: proposal.reason });
      return { entry, deliveries: [], question: null };
    case 'awaiting_order_review':
      entry.registrationState = 'awaiting_order_review';
      log({ change: 'accounting_awaiting_order_review', mismatches: proposal.mismatches.map((m) => m.text) });
      return { entry, deliveries: [], question: await orderReviewQuestion(tx, document, proposal.mismatches) };
    case 'awaiting_classification':
      entry.registrationState = 'awaiting_classification';
      log({ change: 'accounting_awaiting_classification', lines: proposal.unplaced.map((line) => line.description) });
      return { entry, deliveries: [], question: await bookAccountQuestion(tx, document, proposal.unplaced) };
  }
}

const awaitingMessage = (missing: MissingCatalogEntry[]) =>
  `The voucher waits for the ERP catalog to sync: ${missing.map((entry) => `${entry.role} (${entry.description})`).join('; ')}`;

/** Most vouchers one book-account sync lets through; the rest go with the next sync or a retry. */
const RESUMED_PER_SYNC = 100;

/**
 * After the ERP synced its catalogs (in the same transaction), proposes the company's waiting vouchers again and
 * hands over those the catalog now maps. The caller starts the deliveries once the transaction commits, and hands
 * the documents whose voucher now waits for a person to their lifecycles (`askAccounting`).
 */
export async function resumeVouchersAwaitingCatalog(
  em: EntityManager,
  companyId: string,
  publicUrl: string,
): Promise<{ deliveries: DeliveryToStart[]; questions: LifecycleSubject[] }> {
  // Locked, skipping those a concurrent sync is resuming, so that no voucher is handed over twice.
  const waiting = await em.find(
    AccountingEntry,
    { company: companyId, status: 'posted', registrationState: 'awaiting_catalog' },
    { orderBy: { createdAt: 'asc' }, limit: RESUMED_PER_SYNC, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
  );
  await em.populate(waiting, ['document.beneficiary']);
  const deliveries: DeliveryToStart[] = [];
  const questions: LifecycleSubject[] = [];
  for (const entry of waiting) {
    const resumed = await proposeHeld(em, entry.document, entry, publicUrl);
    if (resumed) deliveries.push(...resumed.deliveries);
    if (resumed?.question) questions.push(lifecycleSubjectOf(entry.document));
  }
  return { deliveries, questions };
}

/** A voucher waiting for the catalog, proposed again: settled when the catalog now maps it, else still waiting (null). */
async function proposeHeld(em: EntityManager, document: Document, entry: AccountingEntry, publicUrl: string) {
  const proposal = await agentProposal(em, document);
  if (proposal.status === 'awaiting_catalog') {
    entry.missingCatalogEntries = proposal.missing;
    return null;
  }
  return settle(em, document, entry, proposal, AGENT, publicUrl);
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

/** Open orders take invoices; an order's lines are few (at most 500, as synced). */
async function orderOf(em: EntityManager, document: Document) {
  if (!document.purchaseOrder) return null;
  return em.findOne(ErpPurchaseOrder, { number: document.purchaseOrder }, { orderBy: { updatedAt: 'desc' } });
}

/**
 * Reads what the accounting agent needs and lets it propose the voucher: the document's lines, the company's active
 * catalogs, the order it names, the supplier's taught rules for these lines, and the answers of people on this
 * document. A purchase-order review a person rejected holds the voucher. Writes nothing but what a person's answer
 * teaches.
 */
export async function agentProposal(em: EntityManager, document: Document): Promise<Proposal | Held> {
  const [lines, products, taxes, accounts, order, settings, decisions] = await Promise.all([
    em.find(LineItem, { document }, { orderBy: { position: 'asc' } }),
    em.find(ErpProduct, { isActive: true }),
    em.find(ErpTax, { isActive: true }),
    em.find(ErpBookAccount, { isActive: true }, { orderBy: { code: 'asc' } }),
    orderOf(em, document),
    accountingSettingsOf(em, document.company.id),
    decisionsOf(em, document.id),
  ]);
  const vendor = document.beneficiary
    ? await em.findOne(ErpVendor, { identifierNumber: document.beneficiary.identifierNumber, isActive: true })
    : null;
  const rules = document.beneficiary
    ? await rulesFor(em, {
        companyId: document.company.id,
        beneficiaryId: document.beneficiary.id,
        keys: lines.flatMap((line) => [
          ...(line.code?.trim() ? [{ matchKind: 'product' as const, matchKey: line.code.trim() }] : []),
          { matchKind: 'description' as const, matchKey: normalizedDescription(line.name) },
        ]),
      })
    : [];
  const installments = await installmentsOf(em, document);
  const proposal = proposeJournal({
    document,
    lines,
    products,
    taxes,
    accounts,
    vendor,
    installments,
    postedAt: new Date(),
    rules,
    order,
    priceTolerancePercent: settings.priceTolerancePercent,
    decisions,
  });
  if (proposal.status === 'awaiting_order_review' && decisions.orderReview && !decisions.orderReview.approved)
    return {
      status: 'held',
      journal: null,
      reason: `A person rejected the lines beyond their purchase order: ${proposal.mismatches.map((m) => m.text).join('; ')}`,
    };
  if (proposal.status === 'ready' && decisions.bookAccount && document.beneficiary)
    await learnRules(em, {
      companyId: document.company.id,
      beneficiaryId: document.beneficiary.id,
      rules: taughtBy(proposal.journal, lines),
      source: 'classification',
      sourceReference: decisions.bookAccount.stepId,
    });
  return proposal;
}

/** A voucher an operator gave: its lines a person placed teach the agent where this supplier's lines go. */
async function learnFromVoucher(em: EntityManager, document: Document, entry: AccountingEntry, journal: JournalEntry) {
  if (!document.beneficiary) return;
  const lines = await em.find(LineItem, { document }, { fields: ['name', 'code'] });
  const codeOf = new Map(lines.map((line) => [normalizedDescription(line.name), line.code?.trim() || null]));
  const rules = journal.erp_journal_entry_lines.flatMap((line) => {
    if (line.source !== 'front' || line.debit_cents === null || line.debit_cents === undefined || !line.description)
      return [];
    const description = normalizedDescription(line.description);
    const code = codeOf.get(description);
    return [
      {
        matchKind: 'description' as const,
        matchKey: description,
        bookAccountExternalId: line.book_account_external_id,
      },
      ...(code
        ? [{ matchKind: 'product' as const, matchKey: code, bookAccountExternalId: line.book_account_external_id }]
        : []),
    ];
  });
  if (rules.length > 0)
    await learnRules(em, {
      companyId: document.company.id,
      beneficiaryId: document.beneficiary.id,
      rules,
      source: 'voucher',
      sourceReference: entry.id,
    });
}
