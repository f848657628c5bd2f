import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { WEBHOOK_EVENTS, WebhookSubscription } from './webhook-subscription.entity.ts';

export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed', 'rejected'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** One event sent to one subscription, across all its attempts. `rejected` is the receiver's 422. */
export const WebhookDelivery = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  // The event id makes the delivery idempotent: webhook/<subscriptionRef>/<eventId>.
  uniques: [{ properties: ['subscription', 'eventId'] }],
  indexes: [{ properties: ['company', 'createdAt'] }, { properties: ['company', 'subjectId', 'event'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    subscription: () => p.manyToOne(WebhookSubscription),
    eventId: p.string(),
    event: p.enum(WEBHOOK_EVENTS).nativeEnumName('webhook_event'),
    /** What the event is about (a document, a payment), to find its deliveries again. */
    subjectId: p.string().nullable(),
    /** The body as structured data, for operators. */
    payload: p.json<Record<string, unknown>>(),
    /** The body exactly as signed and sent: every attempt sends these bytes. */
    body: p.text(),
    status: p.enum(DELIVERY_STATUSES).nativeEnumName('delivery_status').default('pending'),
    attempts: p.integer().default(0),
    lastStatusCode: p.integer().nullable(),
    receiverResponse: p.json<unknown>().nullable(),
    deliveredAt: p.datetime().nullable(),
    /** While an attempt is sending: until when it holds the delivery, so that a second run of it waits instead of sending too. */
    sendingUntil: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type WebhookDelivery = InferEntity<typeof WebhookDelivery>;
