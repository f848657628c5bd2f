import { renderDocuments } from '../../read-models/document-json.ts';
import {
  handedOverJournal,
  type AccountingEntry,
  type JournalEntry,
} from '../../db/accounting/accounting-entry.entity.ts';
import type { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Transaction } from '../../db/prepared.ts';
import { documentDate } from '../../fiscal/country-dates.ts';
import { localVoucher } from '../accounting/local-amounts.ts';

// Webhook amounts are integer cents (the API shows decimal amounts; receivers get minor units).

/** `document.created`: the document as the API lists it, with its beneficiary, amounts in cents. Read back, so flush it first. */
export async function documentCreatedPayload(
  on: EntityManager | Transaction,
  document: Pick<Document, 'id' | 'amountCents' | 'prepaidCents'> & { company: { id: string } },
  publicUrl: string,
): Promise<Record<string, unknown>> {
  const [data] = await renderDocuments(on, document.company.id, [document.id], ['beneficiaries'], publicUrl);
  if (!data) throw new Error(`document ${document.id} is not in the database yet`);
  return {
    event: 'document.created',
    timestamp: new Date().toISOString(),
    data: {
      ...data,
      amount: Number(document.amountCents),
      prepaid: data.prepaid ? { ...data.prepaid, amount: Number(document.prepaidCents) } : null,
    },
  };
}

/** `document.accounted`: the document and its posted voucher, exactly the fields the contract lists, and local amounts. */
export function documentAccountedPayload(
  document: Document,
  beneficiary: Beneficiary | null,
  entry: AccountingEntry,
  filePath: string | null,
): Record<string, unknown> {
  return {
    event: 'document.accounted',
    timestamp: new Date().toISOString(),
    data: {
      reference: document.id,
      document_number: document.documentNumber,
      // The contract's three types: an expense is booked like an invoice, and said so apart.
      type: document.type === 'expense' ? 'invoice' : document.type,
      is_expense: document.type === 'expense',
      issue_date: document.issueDate ? documentDate(document.issueDate, document) : null,
      expiration_date: document.expirationDate?.toISOString() ?? null,
      amount: Number(document.amountCents),
      amount_currency: document.currency,
      status: document.approvalStatus,
      payment_status: document.paymentStatus,
      fiscal_reference: document.fiscalReference ?? null,
      fiscal_metadata: { final_notes: document.fiscalMetadata?.finalNotes ?? [] },
      file_path: filePath,
      purchase_order: document.purchaseOrder ?? null,
      beneficiary: beneficiary
        ? {
            reference: beneficiary.id,
            name: beneficiary.name,
            identifier_type: beneficiary.identifierType,
            identifier_number: beneficiary.identifierNumber,
          }
        : null,
      accounting_entry: {
        reference: entry.id,
        accounted_at: entry.accountedAt.toISOString(),
        // A crossed voucher (purchase order or goods receipt lines) is registered against that document.
        is_crossed: entry.isCrossed,
        summary: entry.summary,
        journal_entry: withLocalAmounts(document, handedOverJournal(entry)),
        advance_crossings: entry.advanceCrossings,
        registration_payload: entry.registrationPayload ?? null,
      },
    },
  };
}

const cents = (value: bigint | null) => (value === null ? null : Number(value));

/**
 * The voucher as stored, with what an ERP keeping its books in the local currency needs: the document's currency and
 * exchange rate, and each line's amounts in the local currency (integer cents, like the lines' own).
 */
function withLocalAmounts(document: Document, journal: JournalEntry): Record<string, unknown> {
  const local = localVoucher(document, journal);
  return {
    ...journal,
    currency: local.currency,
    exchange_rate: local.exchangeRate,
    erp_journal_entry_lines: (journal.erp_journal_entry_lines ?? []).map((line, index) => ({
      ...line,
      local_debit_cents: cents(local.lines[index]?.debit ?? null),
      local_credit_cents: cents(local.lines[index]?.credit ?? null),
    })),
    payment_lines: (journal.payment_lines ?? []).map((line, index) => ({
      ...line,
      local_amount_cents: cents(local.paymentLines[index] ?? null),
    })),
  };
}

/** `payment.rescheduled`: the payment and its old and new due dates; the old one is null when the payment had none. */
export function paymentRescheduledPayload(
  paymentId: string,
  previousDueDate: string | null,
  newDueDate: string,
): Record<string, unknown> {
  return {
    event: 'payment.rescheduled',
    timestamp: new Date().toISOString(),
    payment_id: paymentId,
    previous_due_date: previousDueDate,
    new_due_date: newDueDate,
  };
}
