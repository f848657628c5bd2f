import type { Company } from '../../db/companies/company.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import {
  activeSubscribers,
  insertDeliveries,
  type DeliveryToStart,
} from '../../db/webhooks/webhook-delivery.repository.ts';
import type { WebhookEvent } from '../../db/webhooks/webhook-subscription.entity.ts';

type Payload = Record<string, unknown>;

/**
 * Records an event for every active subscription of the company to it, in the caller's transaction, so the event
 * is stored together with the fact it announces. The body is serialised once: every attempt sends the same bytes.
 * A payload that costs a query to build may be given as a function: it runs only when someone subscribes.
 */
export async function recordEvent(
  em: EntityManager,
  company: Pick<Company, 'id'>,
  event: WebhookEvent,
  subjectId: string | null,
  payloadOrBuild: Payload | (() => Promise<Payload>),
): Promise<DeliveryToStart[]> {
  const subscribers = await activeSubscribers(em, event);
  if (subscribers.length === 0) return [];
  const payload = typeof payloadOrBuild === 'function' ? await payloadOrBuild() : payloadOrBuild;
  return insertDeliveries(em, { companyId: company.id, event, subjectId, payload }, subscribers);
}

/** Deliveries of an event about a subject that may not have been started yet (a crash between commit and start). */
export async function undeliveredEventsOf(
  em: EntityManager,
  subjectId: string,
  event: WebhookEvent,
): Promise<WebhookDelivery[]> {
  return em.find(WebhookDelivery, { subjectId, event, status: 'pending' }, { populate: ['subscription'] });
}
