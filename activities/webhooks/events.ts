import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { Company } from '../../db/companies/company.entity.ts';
import { uuidv7 } from '../../db/ids.ts';
import type { EntityManager } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { WebhookSubscription, type WebhookEvent } from '../../db/webhooks/webhook-subscription.entity.ts';
import type { TemporalHandle } from '../../temporal/handle.ts';
import type { WebhookDeliveryInput } from '../../workflows/webhook.ts';
import { workflowIds } from '../../workflows/ids.ts';

/** The retry schedule: waits grow from `initialMs`, doubling, capped at `maxMs`, each with jitter. */
export interface RetrySchedule {
  initialMs: number;
  maxMs: number;
}

export function retryScheduleFromEnv(env: NodeJS.ProcessEnv = process.env): RetrySchedule {
  return {
    initialMs: Number(env.WEBHOOK_RETRY_INITIAL_MS ?? 30_000),
    maxMs: Number(env.WEBHOOK_RETRY_MAX_MS ?? 3_600_000),
  };
}

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

/**
 * Starts one delivery workflow per event and subscription; starting it again is a no-op, so nothing is sent twice.
 * `redeliver` (an operator's explicit request) runs a finished delivery once more, numbering attempts on.
 */
export async function startDeliveries(
  temporal: TemporalHandle,
  schedule: RetrySchedule,
  deliveries: WebhookDelivery[],
  options: { redeliver?: boolean } = {},
): Promise<void> {
  for (const delivery of deliveries) {
    const input: WebhookDeliveryInput = {
      companyId: delivery.company.id,
      deliveryId: delivery.id,
      event: delivery.event,
      attempts: delivery.subscription.retries + 1,
      firstAttempt: delivery.attempts + 1,
      timeoutSeconds: delivery.subscription.timeoutSeconds,
      retry: schedule,
      // A registered voucher resolves the document's accounting step.
      ...(delivery.event === 'document.accounted'
        ? { documentId: (delivery.payload.data as { reference: string }).reference }
        : {}),
    };
    try {
      await temporal.client.workflow.start('webhookDelivery', {
        workflowId: workflowIds.webhook(delivery.subscription.id, delivery.eventId),
        taskQueue: temporal.taskQueue,
        args: [input],
        workflowIdReusePolicy: options.redeliver
          ? WorkflowIdReusePolicy.ALLOW_DUPLICATE
          : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

/** Deliveries of an event about a subject that may not have been started yet (a crash between commit and start). */
export async function undeliveredEventsOf(
  em: EntityManager,
  subjectId: string,
  event: WebhookEvent,
): Promise<WebhookDelivery[]> {
  return em.find(WebhookDelivery, { subjectId, event, status: 'pending' }, { populate: ['subscription'] });
}
