import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/**
 * How the accounting agent works for one company (`ops accounting settings`). Without a row: automatic, and an
 * invoice line's unit price must equal its purchase-order line's to be crossed.
 */
export const AccountingSetting = defineEntity({
  name: 'AccountingSetting',
  tableName: 'accounting_settings',
  uniques: [{ properties: ['company'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    /** Off: accounting never starts by itself (on approval, or when a flow's accounting step opens). */
    automatic: p.boolean().default(true),
    /** How far, in percent, an invoice line's unit price may be from its purchase-order line's and still be crossed. */
    priceTolerancePercent: p.decimal('number').precision(5).scale(2).default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type AccountingSetting = InferEntity<typeof AccountingSetting>;
