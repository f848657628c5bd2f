import { getExternalWorkflowHandle, proxyActivities, proxyLocalActivities, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { WebhookEvent } from '../db/webhooks/webhook-subscription.entity.ts';
import { accountingRegisteredSignal } from './document.ts';
import { workflowIds } from './ids.ts';

export interface WebhookDeliveryInput {
  companyId: string;
  deliveryId: string;
  event: WebhookEvent;
  /** 1 + the subscription's retries. */
  attempts: number;
  /** Attempts are numbered on from here (a redelivery continues the delivery's numbering). */
  firstAttempt?: number;
  timeoutSeconds: number;
  /** Waits between attempts: from initialMs, doubling, capped at maxMs, times a jitter in [0.5, 1). */
  retry: { initialMs: number; maxMs: number };
  /** For `document.accounted`: the document whose accounting step a registration resolves. */
  documentId?: string;
}

/** The wait before the `next` attempt (2, 3...): exponential, capped, with jitter so that receivers are not stampeded. */
export function backoffMs(retry: WebhookDeliveryInput['retry'], next: number, random: number): number {
  const base = Math.min(retry.maxMs, retry.initialMs * 2 ** (next - 2));
  return Math.round(base * (0.5 + random / 2));
}

/**
 * Delivers one event to one subscription, as workflow `webhook/<subscriptionRef>/<eventId>`: one workflow per event
 * and subscription, so an event is never sent twice by us and never lost. Each attempt records itself; the waits
 * between attempts are durable timers.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<'delivered' | 'failed' | 'rejected'> {
  // The activity's own retries cover our side (database down); the receiver's failures are counted as attempts here.
  const options = {
    startToCloseTimeout: `${input.timeoutSeconds + 30} seconds`,
    retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 20 },
  };
  const scheduled = proxyActivities<Activities>({ ...options, heartbeatTimeout: '10 seconds' });
  // An attempt runs inside the workflow task, as a local activity, saving the server round trips of a scheduled one;
  // either way it may run twice after a crash, and a delivery it finds recorded as final is not sent again.
  const { attemptDelivery } = proxyLocalActivities<Activities>(options);
  let lastError: string | null = null;
  const first = input.firstAttempt ?? 1;
  for (let count = 1; count <= input.attempts; count++) {
    if (count > 1) await sleep(backoffMs(input.retry, count, Math.random()));
    const result = await attemptDelivery({
      companyId: input.companyId,
      deliveryId: input.deliveryId,
      attempt: first + count - 1,
    });
    if (result.outcome !== 'retry') {
      if (result.outcome === 'delivered' && input.event === 'document.accounted' && input.documentId) {
        await getExternalWorkflowHandle(workflowIds.document(input.documentId))
          .signal(accountingRegisteredSignal)
          .catch(() => undefined);
      }
      return result.outcome;
    }
    lastError = result.error;
  }
  await scheduled.giveUpDelivery({ companyId: input.companyId, deliveryId: input.deliveryId, error: lastError });
  return 'failed';
}
