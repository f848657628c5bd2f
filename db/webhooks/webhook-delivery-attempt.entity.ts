import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { WebhookDelivery } from './webhook-delivery.entity.ts';

/** One HTTP request of a delivery, for operators diagnosing a receiver. */
export const WebhookDeliveryAttempt = defineEntity({
  name: 'WebhookDeliveryAttempt',
  tableName: 'webhook_delivery_attempts',
  uniques: [{ properties: ['delivery', 'attempt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    delivery: () => p.manyToOne(WebhookDelivery),
    /** 1-based. */
    attempt: p.integer(),
    startedAt: p.datetime(),
    /** Null when no answer came (timeout, connection error). */
    statusCode: p.integer().nullable(),
    latencyMs: p.integer().nullable(),
    error: p.text().nullable(),
  },
});
export type WebhookDeliveryAttempt = InferEntity<typeof WebhookDeliveryAttempt>;
