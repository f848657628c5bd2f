import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { catalogProperties } from './catalog.ts';

/** One installment: due `days` after issue, for `percentage` (decimal string) of the total. */
export type PaymentTermInstallment = { days: number; percentage: string };

/** A payment term of the company's ERP (e.g. 30 days, or 50% now and 50% at 60 days). */
export const ErpPaymentTerm = defineEntity({
  name: 'ErpPaymentTerm',
  tableName: 'erp_payment_terms',
  uniques: [{ properties: ['company', 'externalId'] }],
  properties: {
    ...catalogProperties(),
    name: p.string(),
    days: p.integer().nullable(),
    installments: p.json<PaymentTermInstallment[]>().onCreate(() => []),
  },
});
export type ErpPaymentTerm = InferEntity<typeof ErpPaymentTerm>;
