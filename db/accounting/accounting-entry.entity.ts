import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { uuidKey } from '../ids.ts';

export const ACCOUNTING_ENTRY_STATUSES = ['posted', 'cancelled'] as const;
export type AccountingEntryStatus = (typeof ACCOUNTING_ENTRY_STATUSES)[number];

/**
 * Registration of the voucher in the integrator's ERP, through the `document.accounted` webhook. `awaiting_catalog`:
 * the ERP catalog lacks a book account the voucher needs, so there is no voucher to hand over yet.
 * `awaiting_classification`: a person must choose the book account of lines no evidence places, through a
 * `book_account` classification step. `awaiting_order_review`: invoice lines do not match their purchase order, and a
 * person reviews them through a step. `held`: a person rejected the purchase-order review; the voucher is not sent,
 * and the reason is in failure_code / failure_message.
 */
export const REGISTRATION_STATES = [
  'awaiting_catalog',
  'pending',
  'registering',
  'registered',
  'failed',
  'awaiting_classification',
  'awaiting_order_review',
  'held',
] as const;
export type RegistrationState = (typeof REGISTRATION_STATES)[number];

// The JSON below keeps the snake_case wire shape of `document.accounted`, because it is sent as stored.

export type JournalEntryLineSource =
  'document' | 'agent' | 'front' | 'purchase_order' | 'goods_receipt' | 'payable_line';

export type JournalEntryLine = {
  source: JournalEntryLineSource;
  description?: string | null;
  book_account_external_id: string;
  /** Exactly one of debit_cents and credit_cents is set. */
  debit_cents?: number | null;
  credit_cents?: number | null;
  quantity?: number | null;
  unit_price_cents?: number | null;
  discount?: number | null;
  discount_rate?: number | null;
  product_external_id?: string | null;
  vendor_external_id?: string | null;
  cost_centers?: { cost_center_external_id: string; percentage: number }[];
  warehouses?: { warehouse_external_id: string }[];
  taxes?: { tax_external_id: string; base_cents: number; amount_cents: number; type?: string }[];
  purchase_order_line_external_id?: string | null;
  goods_receipt_line_external_id?: string | null;
  metadata?: Record<string, unknown>;
};

export type PaymentLine = {
  book_account_external_id: string;
  book_account_code?: string | null;
  book_account_name?: string | null;
  amount_cents: number;
  due_date: string;
  quota_number: number;
  payment_method_external_id?: string | null;
  cost_center_external_id?: string | null;
};

export type JournalEntry = {
  status: AccountingEntryStatus;
  document_number: string;
  document_type_external_id?: string | null;
  vendor_external_id?: string | null;
  issue_date: string;
  posting_date?: string | null;
  expiration_date?: string | null;
  cost_center_external_id?: string | null;
  description?: string | null;
  erp_journal_entry_lines: JournalEntryLine[];
  payment_lines: PaymentLine[];
  erp_journal_entry_taxes?: Record<string, unknown>[];
};

/** A book account a voucher needs and the company's ERP catalog does not have yet. */
export type MissingCatalogEntry = {
  catalog: 'book_accounts' | 'taxes';
  /**
   * Book accounts: `expense` (debit nature: none to choose from), `supplier_payable` (credit nature),
   * `supplier_advance`. Taxes: `tax` or `withholding`, of the type and rate the description names.
   */
  role: 'expense' | 'supplier_payable' | 'supplier_advance' | 'tax' | 'withholding';
  description: string;
};

export type AdvanceCrossing = {
  external_move_line_id: string;
  external_move_id?: string | null;
  external_payment_id?: string | null;
  amount_cents: number;
  original_amount_cents: number;
  outstanding_amount_cents: number;
  currency: string;
  advance_date: string;
  status?: string | null;
  reference?: string | null;
};

/** A voucher: how a document is recorded in the books, and the state of its registration in the ERP. */
export const AccountingEntry = defineEntity({
  name: 'AccountingEntry',
  tableName: 'accounting_entries',
  uniques: [
    // A document has at most one live voucher; cancelled ones stay for history.
    { name: 'accounting_entries_one_posted_per_document', properties: ['document'], where: { status: 'posted' } },
  ],
  indexes: [
    { properties: ['document', 'createdAt'] },
    // Vouchers a book-account sync may let through.
    {
      name: 'accounting_entries_awaiting_catalog',
      properties: ['company'],
      where: { registrationState: 'awaiting_catalog' },
    },
  ],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document),
    status: p.enum(ACCOUNTING_ENTRY_STATUSES).nativeEnumName('accounting_entry_status').default('posted'),
    registrationState: p.enum(REGISTRATION_STATES).nativeEnumName('registration_state').default('pending'),
    /** The receiver's 422 error, shown to the customer. */
    failureCode: p.string().nullable(),
    failureMessage: p.text().nullable(),
    accountedAt: p.datetime(),
    summary: p.json<Record<string, unknown>>().onCreate(() => ({})),
    /** Null while `awaiting_catalog`: the agent proposes it once the ERP has synced what it names as missing. */
    journalEntry: p.json<JournalEntry>().nullable(),
    /** What the ERP catalog must sync before the voucher can be proposed; empty once it is. */
    missingCatalogEntries: p.json<MissingCatalogEntry[]>().onCreate(() => []),
    advanceCrossings: p.json<AdvanceCrossing[]>().onCreate(() => []),
    /** The original input, for traceability only. */
    registrationPayload: p.json<Record<string, unknown>>().nullable(),
    /** Some line comes from a purchase order or goods receipt, so it must be registered against it. */
    isCrossed: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type AccountingEntry = InferEntity<typeof AccountingEntry>;

/** The voucher of an entry that is handed over: only one awaiting its catalog has none, and it is never sent. */
export function handedOverJournal(entry: Pick<AccountingEntry, 'id' | 'journalEntry'>): JournalEntry {
  if (!entry.journalEntry)
    throw new Error(`Accounting entry ${entry.id} awaits its ERP catalog and has no voucher yet`);
  return entry.journalEntry;
}
