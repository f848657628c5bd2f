import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidv7 } from '../ids.ts';

/** A group of payments sent to the gateway together. The spec does not show its fields or states. */
export const PaymentBatch = defineEntity({
  name: 'PaymentBatch',
  tableName: 'payment_batches',
  indexes: [{ properties: ['company', 'createdAt'] }],
  properties: {
    id: p
      .uuid()
      .primary()
      .onCreate(() => uuidv7()),
    company: () => p.manyToOne(Company),
    name: p.string(),
    /** Open list while the spec shows none. */
    status: p.string().default('pending'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type PaymentBatch = InferEntity<typeof PaymentBatch>;
