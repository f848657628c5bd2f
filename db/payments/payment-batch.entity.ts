import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { currencyProperty } from '../money.ts';

/**
 * A group of payments an operator releases together, as one bulk transfer to the gateway. The spec does not show its
 * fields: `name`, and `status` `releasing` (its payments are being handed over) then `released`.
 */
export const PaymentBatch = defineEntity({
  name: 'PaymentBatch',
  tableName: 'payment_batches',
  indexes: [{ properties: ['company', 'createdAt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    name: p.string(),
    status: p.string().default('releasing'),
    currency: currencyProperty(),
    /** The gateway's id of the bulk transfer, once it holds it. */
    gatewayReference: p.string().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type PaymentBatch = InferEntity<typeof PaymentBatch>;
