import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

export const WEBHOOK_EVENTS = ['document.created', 'document.accounted', 'payment.rescheduled'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** An endpoint of the integrator that receives one event kind, signed with its secret. */
export const WebhookSubscription = defineEntity({
  name: 'WebhookSubscription',
  tableName: 'webhook_subscriptions',
  indexes: [{ properties: ['company', 'event', 'isActive'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    event: p.enum(WEBHOOK_EVENTS).nativeEnumName('webhook_event'),
    url: p.string().length(2048),
    /** The signing secret, encrypted at rest; iv and auth tag travel inside the string. */
    secretCiphertext: p.text(),
    retries: p.integer().default(3),
    timeoutSeconds: p.integer().default(30),
    /** Extra headers for the receiver's own authentication. */
    headers: p.json<Record<string, string>>().onCreate(() => ({})),
    isActive: p.boolean().default(true),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type WebhookSubscription = InferEntity<typeof WebhookSubscription>;
