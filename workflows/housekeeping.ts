import { continueAsNew, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';

export interface HousekeepingInput {
  /** How often it sweeps, and how old a stranded batch must be to be handed over. */
  everyMs: number;
  /** How long this run lasts; its schedule starts the next one. */
  forMs: number;
  /** Set on a run continued as new: the day's certificate warnings are already logged. */
  warned?: boolean;
}

const { handOverStrandedReceptionEventBatches, warnExpiringCertificates } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '10 seconds', maximumAttempts: 5 },
});

/**
 * The product's housekeeping, one run a day started by the schedule `housekeeping/<task queue>`: once, it warns in the
 * logs of signing certificates about to expire; every `everyMs` it hands over the reception-event batches whose API
 * died (or lost Temporal) before starting their workflow. One run a
 * day, not one workflow a minute, so that business flows stay easy to find in the Temporal UI. Answers how many
 * batches it handed over.
 */
export async function housekeeping(input: HousekeepingInput): Promise<number> {
  const end = Date.now() + input.forMs;
  let handedOver = 0;
  if (!input.warned) await warnExpiringCertificates();
  for (;;) {
    handedOver += await handOverStrandedReceptionEventBatches({ olderThanMs: input.everyMs });
    if (Date.now() + input.everyMs > end) return handedOver;
    if (workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof housekeeping>({ ...input, forMs: end - Date.now(), warned: true });
    await sleep(input.everyMs);
  }
}
