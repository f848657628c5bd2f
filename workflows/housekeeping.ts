import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

export interface HousekeepingInput {
  /** How often it sweeps, and how old a stranded batch must be to be handed over. */
  everyMs: number;
  /** How long this run lasts; its schedule starts the next one. */
  forMs: number;
}

const { handOverStrandedReceptionEventBatches } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/**
 * The product's housekeeping, one run a day started by the schedule `housekeeping/<task queue>`: every `everyMs` it
 * hands over the reception-event batches whose API died (or lost Temporal) before starting their workflow. One run a
 * day, not one workflow a minute, so that business flows stay easy to find in the Temporal UI. Answers how many
 * batches it handed over.
 */
export async function housekeeping(input: HousekeepingInput): Promise<number> {
  const end = Date.now() + input.forMs;
  let handedOver = 0;
  for (;;) {
    handedOver += await handOverStrandedReceptionEventBatches({ olderThanMs: input.everyMs });
    if (Date.now() + input.everyMs > end) return handedOver;
    if (workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof housekeeping>({ ...input, forMs: end - Date.now() });
    await sleep(input.everyMs);
  }
}
