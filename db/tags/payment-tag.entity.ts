import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { Payment } from '../payments/payment.entity.ts';
import { Tag } from './tag.entity.ts';

/** A tag on a payment, usually propagated from its document. Explicit entity so that it carries its company. */
export const PaymentTag = defineEntity({
  name: 'PaymentTag',
  tableName: 'payment_tags',
  uniques: [{ properties: ['payment', 'tag'] }],
  // Serves the `tags` filter of GET /payments.
  indexes: [{ properties: ['tag', 'payment'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    payment: () => p.manyToOne(Payment),
    tag: () => p.manyToOne(Tag),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type PaymentTag = InferEntity<typeof PaymentTag>;
