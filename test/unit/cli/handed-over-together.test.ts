import { afterEach, describe, expect, it, vi } from 'vitest';
import { handedOverTogether } from '../../../cli/handed-over-together.ts';
import type { DeliveryToStart } from '../../../db/webhooks/webhook-delivery.repository.ts';
import type { Processes } from '../../../services/processes.ts';

const delivery = (id: string) => ({ id }) as DeliveryToStart;

/** Processes that record each hand-over of deliveries, failing those `failing` names. */
function recording(failing: (ids: string[]) => boolean = () => false) {
  const handedOver: string[][] = [];
  const processes = {
    async queueDeliveries(deliveries: readonly DeliveryToStart[]) {
      const ids = deliveries.map((each) => each.id);
      handedOver.push(ids);
      if (failing(ids)) throw new Error(`Temporal refused ${ids.join(',')}`);
    },
  } as Processes;
  return { processes, handedOver };
}

afterEach(() => void vi.useRealTimers());

describe('deliveries handed over together', () => {
  it('hands over what waits once the interval passes, in one call, and nothing before', async () => {
    vi.useFakeTimers();
    const { processes, handedOver } = recording();
    const together = handedOverTogether(processes, 100, 200);
    await together.processes.queueDeliveries([delivery('a')]);
    await together.processes.queueDeliveries([delivery('b'), delivery('c')]);
    await vi.advanceTimersByTimeAsync(99);
    expect(handedOver).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(handedOver).toEqual([['a', 'b', 'c']]);
    await together.drain();
    expect(handedOver).toHaveLength(1);
  });

  it('hands over at once when `max` wait, and the rest when drained', async () => {
    const { processes, handedOver } = recording();
    const together = handedOverTogether(processes, 60_000, 3);
    for (const id of ['a', 'b', 'c', 'd']) await together.processes.queueDeliveries([delivery(id)]);
    await together.drain();
    expect(handedOver).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('hands over every batch even after one fails, and the drain throws the failure', async () => {
    const { processes, handedOver } = recording((ids) => ids.includes('a'));
    const together = handedOverTogether(processes, 60_000, 2);
    for (const id of ['a', 'b', 'c']) await together.processes.queueDeliveries([delivery(id)]);
    await expect(together.drain()).rejects.toThrow('Temporal refused a,b');
    expect(handedOver).toEqual([['a', 'b'], ['c']]);
  });
});
