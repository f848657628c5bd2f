import { ScheduleAlreadyRunning, ScheduleOverlapPolicy } from '@temporalio/client';
import { housekeeping } from '../workflows/housekeeping.ts';
import type { TemporalHandle } from './handle.ts';
import { summaries } from './summaries.ts';

/** The schedule of the product's housekeeping: one per task queue, run by its workers. */
export const housekeepingScheduleId = (taskQueue: string) => `housekeeping/${taskQueue}`;

const DAY_MS = 24 * 3_600_000;

/**
 * Makes sure the housekeeping runs: creates its schedule (a run a day, each sweeping every `everyMs`), or brings an
 * existing one to `everyMs`, and starts today's run unless one is running. Every worker calls it as it starts.
 * One long run a day rather than a run per sweep, so that the Temporal UI is not a stream of one-minute workflows.
 */
export async function scheduleHousekeeping(temporal: TemporalHandle, everyMs: number): Promise<void> {
  const scheduleId = housekeepingScheduleId(temporal.taskQueue);
  const options = {
    spec: { intervals: [{ every: DAY_MS }] },
    action: {
      type: 'startWorkflow' as const,
      workflowType: housekeeping,
      workflowId: scheduleId,
      taskQueue: temporal.taskQueue,
      args: [{ everyMs, forMs: DAY_MS }] as Parameters<typeof housekeeping>,
      staticSummary: summaries.housekeeping(),
    },
    policies: { overlap: ScheduleOverlapPolicy.SKIP },
  };
  try {
    await temporal.client.schedule.create({ scheduleId, ...options });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    await temporal.client.schedule.getHandle(scheduleId).update((current) => ({ ...current, ...options }));
  }
  await temporal.client.schedule.getHandle(scheduleId).trigger();
}
