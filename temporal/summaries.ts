// What each flow is, in words, as the Temporal UI lists it (a workflow's static summary): an operator scanning the
// list reads the document, the payment or the company, not a workflow id.
import { centsToDecimal } from '../fiscal/money.ts';
import type { LifecycleSubject } from '../services/processes.ts';

const DOCUMENT_TYPES: Record<string, string> = {
  invoice: 'Invoice',
  credit_note: 'Credit note',
  debit_note: 'Debit note',
  expense: 'Expense',
};

/** `3,990,000.00 COP`. */
export function amountInWords(cents: bigint | string, currency: string): string {
  const [whole = '0', fraction = '00'] = centsToDecimal(BigInt(cents)).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${fraction} ${currency}`;
}

/** `Invoice SDV4817 · Suministros del Valle · 3,990,000.00 COP`. */
export function documentSummary(document: LifecycleSubject): string {
  return [
    `${DOCUMENT_TYPES[document.type] ?? document.type} ${document.documentNumber}`,
    document.supplierName,
    amountInWords(document.amountCents, document.currency),
  ]
    .filter(Boolean)
    .join(' · ');
}

/** `Payment of 1,523,060.00 COP · pay date 2026-12-15`. */
export function paymentSummary(payment: { amountCents: string; currency: string; payDate: string | null }): string {
  const amount = `Payment of ${amountInWords(payment.amountCents, payment.currency)}`;
  return payment.payDate ? `${amount} · pay date ${payment.payDate}` : amount;
}

export const summaries = {
  bankAccountValidation: (attempt: number) => `Validating a bank account with the bank (attempt ${attempt})`,
  paymentBatch: (payments: number) => `Batch of ${payments} payment(s) to the gateway`,
  receptionEvent: (eventType: string, cufe: string) => `DIAN event ${eventType} for CUFE ${cufe.slice(0, 12)}…`,
  receptionEventBatch: () => 'A batch of DIAN reception events',
  webhookDelivery: (event: string) => `Webhook ${event}`,
  webhookDeliveryQueue: () => 'Webhook deliveries of one subscription, in order',
  fiscalSync: (country: 'MEX' | 'COL') => `Fiscal sync from ${country === 'MEX' ? 'SAT' : 'DIAN'}`,
  housekeeping: () => 'Daily housekeeping: stranded batches, expiring certificates',
};
