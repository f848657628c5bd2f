import {
  condition,
  continueAsNew,
  defineSignal,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  workflowInfo,
  WorkflowIdReusePolicy,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Activities } from '../activities/index.ts';
import type { WebhookDeliveryInput } from './delivery.ts';
import { workflowIds } from './ids.ts';
import { webhookDelivery } from './webhook.ts';

/** A delivery queued on its subscription's workflow: what its own workflow would take, and that workflow's id. */
export interface QueuedDelivery extends WebhookDeliveryInput {
  subscriptionId: string;
  eventId: string;
}

export interface DeliveryQueueInput {
  companyId: string;
  subscriptionId: string;
}

export const queueDeliveriesSignal = defineSignal<[QueuedDelivery[]]>('queue');

/** First attempts sent together by one activity, and how many such sends may run at once. */
const BATCH = 25;
const SENDS_IN_FLIGHT = 4;
/** An idle queue ends; the next delivery starts it again (signal-with-start). */
const IDLE_FOR = '5 minutes';

/** A batch's send may take as long as its slowest receiver may answer, and the activity's own retries cover our side. */
const sender = (batch: QueuedDelivery[]) =>
  proxyActivities<Activities>({
    startToCloseTimeout: `${Math.max(...batch.map((delivery) => delivery.timeoutSeconds)) + 30} seconds`,
    heartbeatTimeout: '10 seconds',
    retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
  });

/**
 * The first attempts of one subscription's deliveries, as workflow `webhook-queue/<subscriptionRef>`: queued by the
 * signals that come with each recorded event, sent in batches, so that a delivery that succeeds at once costs a share
 * of one activity instead of a workflow of its own. A delivery whose first attempt does not settle it goes on in its
 * own workflow, `webhook/<subscriptionRef>/<eventId>`, with the rest of the retry schedule.
 */
export async function webhookDeliveryQueue(input: DeliveryQueueInput, carried: QueuedDelivery[] = []): Promise<void> {
  const queue = [...carried];
  const taken = new Set(queue.map((delivery) => delivery.deliveryId));
  setHandler(queueDeliveriesSignal, (deliveries) => {
    for (const delivery of deliveries)
      if (!taken.has(delivery.deliveryId)) {
        taken.add(delivery.deliveryId);
        queue.push(delivery);
      }
  });
  let sending = 0;
  const send = async (batch: QueuedDelivery[]) => {
    sending += 1;
    try {
      const outcomes = await sender(batch)
        .attemptDeliveries({
          companyId: input.companyId,
          attempts: batch.map((delivery) => ({ deliveryId: delivery.deliveryId, attempt: delivery.firstAttempt ?? 1 })),
        })
        // Our side failed past the activity's retries: each delivery's own workflow tries again.
        .catch(() => batch.map(() => 'unsent' as const));
      await Promise.all(batch.map((delivery, index) => continueUnsettled(delivery, outcomes[index]!)));
    } finally {
      sending -= 1;
    }
  };
  // A long history carries on in a fresh run, with what is still queued; sends in flight finish first.
  const carryOn = () => workflowInfo().continueAsNewSuggested;
  for (;;) {
    const woken = await condition(
      () => (carryOn() ? sending === 0 : queue.length > 0 && sending < SENDS_IN_FLIGHT),
      IDLE_FOR,
    );
    if (carryOn()) {
      if (sending === 0) return continueAsNew<typeof webhookDeliveryQueue>(input, queue);
    } else if (queue.length > 0 && sending < SENDS_IN_FLIGHT) void send(queue.splice(0, BATCH));
    else if (!woken && sending === 0) return;
  }
}

/** A first attempt that did not settle its delivery: the rest of its schedule runs in the delivery's own workflow. */
async function continueUnsettled(delivery: QueuedDelivery, outcome: 'settled' | 'retry' | 'unsent'): Promise<void> {
  if (outcome === 'settled') return;
  const { subscriptionId, eventId, ...input } = delivery;
  const first = input.firstAttempt ?? 1;
  const next: WebhookDeliveryInput =
    outcome === 'retry'
      ? { ...input, firstAttempt: first + 1, attempts: input.attempts - 1, attemptsBefore: 1 }
      : input;
  try {
    await startChild(webhookDelivery, {
      workflowId: workflowIds.webhook(subscriptionId, eventId),
      args: [next],
      staticSummary: `Webhook ${next.event}`,
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    });
  } catch (error) {
    // Its workflow exists already (an operator's redelivery, say): the delivery is in its hands.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
