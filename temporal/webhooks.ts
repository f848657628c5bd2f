import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/client';
import type { DeliveryToStart } from '../db/webhooks/webhook-delivery.repository.ts';
import { workflowIds } from '../workflows/ids.ts';
import type { WebhookDeliveryInput } from '../workflows/delivery.ts';
import { webhookDelivery } from '../workflows/webhook.ts';
import { queueDeliveriesSignal, webhookDeliveryQueue, type QueuedDelivery } from '../workflows/delivery-queue.ts';
import { beforeDeadline, type TemporalHandle } from './handle.ts';
import { summaries } from './summaries.ts';

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

/** A recorded delivery as the workflow that sends it takes it. */
export function deliveryInput(delivery: DeliveryToStart, schedule: RetrySchedule): WebhookDeliveryInput {
  return {
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
}

/**
 * Starts one delivery workflow per event and subscription; starting it again is a no-op, so nothing is sent twice.
 * `redeliver` (an operator's explicit request) runs a finished delivery once more, numbering attempts on.
 */
export async function startDeliveries(
  temporal: TemporalHandle,
  schedule: RetrySchedule,
  deliveries: readonly DeliveryToStart[],
  options: { redeliver?: boolean } = {},
): Promise<void> {
  for (const delivery of deliveries) {
    try {
      await temporal.client.workflow.start(webhookDelivery, {
        workflowId: workflowIds.webhook(delivery.subscription.id, delivery.eventId),
        taskQueue: temporal.taskQueue,
        args: [deliveryInput(delivery, schedule)],
        staticSummary: summaries.webhookDelivery(delivery.event),
        workflowIdReusePolicy: options.redeliver
          ? WorkflowIdReusePolicy.ALLOW_DUPLICATE
          : WorkflowIdReusePolicy.REJECT_DUPLICATE,
      });
    } catch (error) {
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }
}

/**
 * Queues deliveries on their subscriptions' queues (`webhook-queue/<subscriptionRef>`), one signal-with-start per
 * subscription, under the command deadline (a request that records a document does not wait on a hung server): they
 * are sent in batches. Queuing one again is a no-op for a queue that holds it, and a delivery found
 * final is not sent again.
 */
export async function queueDeliveries(
  temporal: TemporalHandle,
  schedule: RetrySchedule,
  deliveries: readonly DeliveryToStart[],
): Promise<void> {
  const bySubscription = Map.groupBy(deliveries, (delivery) => delivery.subscription.id);
  await Promise.all(
    [...bySubscription].map(([subscriptionId, queued]) =>
      beforeDeadline(temporal, () =>
        temporal.client.workflow.signalWithStart(webhookDeliveryQueue, {
          workflowId: workflowIds.webhookQueue(subscriptionId),
          taskQueue: temporal.taskQueue,
          args: [{ companyId: queued[0]!.company.id, subscriptionId }],
          staticSummary: summaries.webhookDeliveryQueue(),
          signal: queueDeliveriesSignal,
          signalArgs: [
            queued.map((delivery): QueuedDelivery => ({
              ...deliveryInput(delivery, schedule),
              subscriptionId,
              eventId: delivery.eventId,
            })),
          ],
        }),
      ),
    ),
  );
}
