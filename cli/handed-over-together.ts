import type { DeliveryToStart } from '../db/webhooks/webhook-delivery.repository.ts';
import type { Processes } from '../services/processes.ts';

/**
 * Processes whose queued deliveries go to their subscriptions' queues together: every `everyMs`, or once `max` wait,
 * and all of them by `drain()`. An import of many files then signals each queue a few times a second instead of once
 * per document. A crash before a hand-over leaves those deliveries recorded and pending; importing the files again
 * hands them over.
 */
export function handedOverTogether(processes: Processes, everyMs = 100, max = 200) {
  let waiting: DeliveryToStart[] = [];
  let timer: NodeJS.Timeout | undefined;
  let handedOver: Promise<void> = Promise.resolve();
  let failure: unknown;
  const handOver = () => {
    clearTimeout(timer);
    timer = undefined;
    const batch = waiting;
    waiting = [];
    if (batch.length)
      handedOver = handedOver
        .then(() => processes.queueDeliveries(batch))
        .catch((error: unknown) => void (failure ??= error));
    return handedOver;
  };
  return {
    processes: {
      ...processes,
      async queueDeliveries(deliveries: readonly DeliveryToStart[]) {
        waiting.push(...deliveries);
        if (waiting.length >= max) void handOver();
        else timer ??= setTimeout(() => void handOver(), everyMs);
      },
    } satisfies Processes,
    /** Hands over what still waits; throws what any hand-over failed with. */
    async drain(): Promise<void> {
      await handOver();
      if (failure) throw failure;
    },
  };
}
