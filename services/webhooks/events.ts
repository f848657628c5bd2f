import type { Company } from '../../db/companies/company.entity.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { EntityManager } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { WebhookSubscription, type WebhookEvent } from '../../db/webhooks/webhook-subscription.entity.ts';

type Payload = Record<string, unknown>;

/**
 * Records an event for every active subscription of the company to it, in the caller's transaction, so the event
 * is stored together with the fact it announces. The body is serialised once: every attempt sends the same bytes.
 * A payload that costs a query to build may be given as a function: it runs only when someone subscribes.
 */
export async function recordEvent(
  em: EntityManager,
  company: Company,
  event: WebhookEvent,
  subjectId: string | null,
  payloadOrBuild: Payload | (() => Promise<Payload>),
): Promise<WebhookDelivery[]> {
  const subscriptions = await em.find(WebhookSubscription, { event, isActive: true });
  if (subscriptions.length === 0) return [];
  const payload = typeof payloadOrBuild === 'function' ? await payloadOrBuild() : payloadOrBuild;
  const eventId = uuidv7();
  const body = JSON.stringify(payload);
  return subscriptions.map((subscription) =>
    em.create(WebhookDelivery, {
      company,
      subscription,
      eventId,
      event,
      subjectId,
      payload,
      body,
      status: 'pending',
      receiverResponse: null,
    }),
  );
}

/** Deliveries of an event about a subject that may not have been started yet (a crash between commit and start). */
export async function undeliveredEventsOf(
  em: EntityManager,
  subjectId: string,
  event: WebhookEvent,
): Promise<WebhookDelivery[]> {
  return em.find(WebhookDelivery, { subjectId, event, status: 'pending' }, { populate: ['subscription'] });
}
