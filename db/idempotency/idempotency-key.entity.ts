import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

export const IDEMPOTENCY_STATUSES = ['in_progress', 'completed'] as const;
export type IdempotencyStatus = (typeof IDEMPOTENCY_STATUSES)[number];

/** A POST seen with an Idempotency-Key: its first response is replayed for 24 h. */
export const IdempotencyKey = defineEntity({
  name: 'IdempotencyKey',
  tableName: 'idempotency_keys',
  uniques: [{ properties: ['company', 'key'] }],
  // For purging expired keys.
  indexes: [{ properties: ['expiresAt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    key: p.string(),
    method: p.string(),
    path: p.string().length(2048),
    /** SHA-256 of the body, hex: the same key with another body is rejected. */
    requestHash: p.string(),
    status: p.enum(IDEMPOTENCY_STATUSES).nativeEnumName('idempotency_status').default('in_progress'),
    responseStatus: p.integer().nullable(),
    /** The answer's JSON as sent, as text: jsonb cannot hold every string JSON can (U+0000, echoed in an error). */
    responseBody: p.text().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    expiresAt: p.datetime(),
  },
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
