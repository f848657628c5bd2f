import { documentDate, type DatedDocument } from '../../fiscal/country-dates.ts';
import type { Document } from '../documents/document.entity.ts';
import { ErpPaymentTerm, type PaymentTermInstallment } from '../erp/payment-term.entity.ts';
import { ErpVendor } from '../erp/vendor.entity.ts';
import type { EntityManager } from '../orm.ts';

export interface Installment {
  number: number;
  amountCents: bigint;
  /** YYYY-MM-DD */
  dueDate: string;
}

const DAY = 24 * 60 * 60 * 1000;

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/** What a document leaves to pay: its total less what the company prepaid (UBL PrepaidAmount), never in its payables. */
export const owedCents = (document: Pick<Document, 'amountCents' | 'prepaidCents'>): bigint =>
  document.amountCents - (document.prepaidCents ?? 0n);

/**
 * An invoice or debit note that leaves nothing to pay (prepaid in full, say): nothing will ever be paid on it, so it
 * gets no installment and no payable, and is `paid` once approved. Credit notes owe nothing too, but are never paid.
 */
export const nothingLeftToPay = (document: Pick<Document, 'type' | 'amountCents' | 'prepaidCents'>): boolean =>
  document.type !== 'credit_note' && owedCents(document) === 0n;

/** What the schedule of a document's payables reads of it. */
export type ScheduledDocument = Pick<
  Document,
  'type' | 'amountCents' | 'prepaidCents' | 'currency' | 'documentNumber' | 'issueDate' | 'expirationDate' | 'createdAt'
> &
  DatedDocument & { beneficiary?: { identifierNumber: string; paymentTerms?: number | null } | null };

/** The supplier's payment term in the company's ERP: days after the issue date, or installments. */
export interface PaymentTerm {
  days: number | null;
  installments: PaymentTermInstallment[] | null;
}

/** The ERP payment term of the supplier with this identifier, when the ERP catalogs know it (an active vendor). */
export async function paymentTermOf(em: EntityManager, identifierNumber: string): Promise<PaymentTerm | null> {
  const vendor = await em.findOne(ErpVendor, { identifierNumber, isActive: true });
  const term = vendor?.paymentTermExternalId
    ? await em.findOne(ErpPaymentTerm, { externalId: vendor.paymentTermExternalId })
    : null;
  return term ? { days: term.days ?? null, installments: term.installments ?? null } : null;
}

/**
 * The installments a document is paid in: the supplier's ERP payment term (days and percentages from the issue
 * date) when the ERP catalogs know the supplier, else one installment due on the document's expiration date, or
 * after the beneficiary's payment term, or on the issue date. Cents are split exactly; the last takes the rest.
 * None when nothing is left to pay.
 */
export async function installmentsOf(em: EntityManager, document: ScheduledDocument): Promise<Installment[]> {
  if (nothingLeftToPay(document)) return [];
  const identifier = document.beneficiary?.identifierNumber;
  return scheduleInstallments(document, identifier ? await paymentTermOf(em, identifier) : null);
}

/** The installments of `installmentsOf`, from the supplier's payment term once read (null: the ERP has none). */
function scheduleInstallments(document: ScheduledDocument, term: PaymentTerm | null): Installment[] {
  if (nothingLeftToPay(document)) return [];
  const issueDate = document.issueDate ?? document.createdAt;
  const issueDay = documentDate(issueDate, document);
  const parts = term?.installments?.length ? term.installments : null;
  const owed = owedCents(document);
  if (parts) {
    let assigned = 0n;
    return parts.map((part, index) => {
      const last = index === parts.length - 1;
      const share = last ? owed - assigned : (owed * BigInt(Math.round(Number(part.percentage) * 1000))) / 100_000n;
      assigned += share;
      return { number: index + 1, amountCents: share, dueDate: addDays(issueDay, part.days) };
    });
  }
  const dueDate = document.expirationDate
    ? documentDate(document.expirationDate, document)
    : addDays(issueDay, term?.days ?? document.beneficiary?.paymentTerms ?? 0);
  return [{ number: 1, amountCents: owed, dueDate }];
}

/** Whether approving the document gives it payables: credit notes and documents with nothing left to pay owe nothing. */
export const owesPayables = (document: ScheduledDocument): boolean =>
  document.type !== 'credit_note' && !nothingLeftToPay(document) && Boolean(document.beneficiary);

/** A payable as approval generates it, but for its document, beneficiary and company. */
export interface PayableOfDocument {
  type: 'supplier';
  /** `canceled` when the document was cancelled before the tax authority before it was approved. */
  status: 'pending' | 'canceled';
  amountCents: bigint;
  currency: Document['currency'];
  balanceCents: bigint;
  issueDate: string;
  expirationDate: string;
  concept: string;
  origin: 'document';
  installmentNumber: number;
}

/** The payables of a document owing something, one per installment. */
export function payablesOf(document: ScheduledDocument, installments: Installment[]): PayableOfDocument[] {
  const issueDay = documentDate(document.issueDate ?? document.createdAt, document);
  return installments.map((installment) => ({
    type: 'supplier',
    status: 'pending',
    amountCents: installment.amountCents,
    currency: document.currency,
    balanceCents: installment.amountCents,
    issueDate: issueDay,
    expirationDate: installment.dueDate,
    concept: `${document.type.replace('_', ' ')} ${document.documentNumber}`,
    origin: 'document',
    installmentNumber: installment.number,
  }));
}
