import { proxyActivities, proxyLocalActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { WebhookEvent } from '../db/webhooks/webhook-subscription.entity.ts';

/** One recorded delivery of an event to a subscription, as the workflow that sends it receives it. */
export interface WebhookDeliveryInput {
  companyId: string;
  deliveryId: string;
  event: WebhookEvent;
  /** 1 + the subscription's retries. */
  attempts: number;
  /** Attempts are numbered on from here (a redelivery continues the delivery's numbering). */
  firstAttempt?: number;
  /** Attempts of this schedule already made elsewhere (a queued first attempt): the next waits its turn. */
  attemptsBefore?: number;
  timeoutSeconds: number;
  /** Waits between attempts: from initialMs, doubling, capped at maxMs, times a jitter in [0.5, 1). */
  retry: { initialMs: number; maxMs: number };
  /** For `document.accounted`: the document whose accounting step a registration resolves. */
  documentId?: string;
}

export type DeliveryOutcome = 'delivered' | 'failed' | 'rejected';

/** The wait before the `next` attempt (2, 3...): exponential, capped, with jitter so that receivers are not stampeded. */
export function backoffMs(retry: WebhookDeliveryInput['retry'], next: number, random: number): number {
  const base = Math.min(retry.maxMs, retry.initialMs * 2 ** (next - 2));
  return Math.round(base * (0.5 + random / 2));
}

/**
 * Sends one event to one subscription until it is final: each attempt records itself, the waits between attempts
 * are durable timers. Runs inside the workflow that owns the delivery, once per delivery id, so an event is never
 * sent twice by us and never lost.
 */
export async function deliverEvent(input: WebhookDeliveryInput): Promise<DeliveryOutcome> {
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
  const before = input.attemptsBefore ?? 0;
  for (let count = 1; count <= input.attempts; count++) {
    if (before + count > 1) {
      const wait = backoffMs(input.retry, before + count, Math.random());
      const next = new Date(Date.now() + wait).toISOString().slice(0, 16).replace('T', ' ');
      if (lastError)
        setCurrentDetails(
          `The receiver answered ${lastError}; attempt ${count} of ${input.attempts} at ${next} UTC, or at its redelivery`,
        );
      await sleep(wait, { summary: `Backoff before attempt ${first + count - 1}` });
    }
    const result = await attemptDelivery({
      companyId: input.companyId,
      deliveryId: input.deliveryId,
      attempt: first + count - 1,
    });
    if (result.outcome === 'rejected')
      setCurrentDetails(
        `The ERP answered 422: ${result.error ?? 'rejected'}; waiting for the customer's retry (POST /documents/{reference}/accounting/retry)`,
      );
    if (result.outcome !== 'retry') return result.outcome;
    lastError = result.error;
  }
  await scheduled.giveUpDelivery({ companyId: input.companyId, deliveryId: input.deliveryId, error: lastError });
  return 'failed';
}
