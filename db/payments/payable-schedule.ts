import { documentDate } from '../../fiscal/country-dates.ts';
import type { Document } from '../documents/document.entity.ts';
import { ErpPaymentTerm } from '../erp/payment-term.entity.ts';
import { ErpVendor } from '../erp/vendor.entity.ts';
import type { EntityManager } from '../orm.ts';
import { Payable } from './payable.entity.ts';

export interface Installment {
  number: number;
  amountCents: bigint;
  /** YYYY-MM-DD */
  dueDate: string;
}

const DAY = 24 * 60 * 60 * 1000;

const addDays = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);

/**
 * An invoice or debit note whose amount left to pay is 0 (prepaid in full, say): nothing will ever be paid on it, so it
 * gets no installment and no payable, and is `paid` once approved. Credit notes owe nothing too, but are never paid.
 */
export const nothingLeftToPay = (document: Pick<Document, 'type' | 'amountCents'>): boolean =>
  document.type !== 'credit_note' && document.amountCents === 0n;

/**
 * The installments a document is paid in: the supplier's ERP payment term (days and percentages from the issue
 * date) when the ERP catalogs know the supplier, else one installment due on the document's expiration date, or
 * after the beneficiary's payment term, or on the issue date. Cents are split exactly; the last takes the rest.
 * None when nothing is left to pay.
 */
export async function installmentsOf(em: EntityManager, document: Document): Promise<Installment[]> {
  if (nothingLeftToPay(document)) return [];
  const issueDate = document.issueDate ?? document.createdAt;
  const issueDay = documentDate(issueDate, document);
  const identifier = document.beneficiary?.identifierNumber;
  const vendor = identifier ? await em.findOne(ErpVendor, { identifierNumber: identifier, isActive: true }) : null;
  const term = vendor?.paymentTermExternalId
    ? await em.findOne(ErpPaymentTerm, { externalId: vendor.paymentTermExternalId })
    : null;
  const parts = term?.installments?.length ? term.installments : null;
  if (parts) {
    let assigned = 0n;
    return parts.map((part, index) => {
      const last = index === parts.length - 1;
      const share = last
        ? document.amountCents - assigned
        : (document.amountCents * BigInt(Math.round(Number(part.percentage) * 1000))) / 100_000n;
      assigned += share;
      return { number: index + 1, amountCents: share, dueDate: addDays(issueDay, part.days) };
    });
  }
  const dueDate = document.expirationDate
    ? documentDate(document.expirationDate, document)
    : addDays(issueDay, term?.days ?? document.beneficiary?.paymentTerms ?? 0);
  return [{ number: 1, amountCents: document.amountCents, dueDate }];
}

/**
 * Creates the document's payables, once: credit notes and documents with nothing left to pay owe nothing, and a
 * document that has payables keeps them.
 */
export async function generatePayables(em: EntityManager, document: Document): Promise<Payable[]> {
  if (document.type === 'credit_note' || nothingLeftToPay(document) || !document.beneficiary) return [];
  const existing = await em.find(Payable, { document });
  if (existing.length) return existing;
  const issueDay = documentDate(document.issueDate ?? document.createdAt, document);
  return (await installmentsOf(em, document)).map((installment) =>
    em.create(Payable, {
      company: document.company,
      document,
      beneficiary: document.beneficiary!,
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
    }),
  );
}
