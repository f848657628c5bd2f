import {
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { QueuedReceptionEvent } from '../db/reception-events/reception-event.repository.ts';
import { RESOLUTION_ORDER } from '../fiscal/radian-rules.ts';
import { earlierEventSettledSignal, receptionEvent, receptionEventBatch } from '../workflows/reception-event.ts';
import { type ReceptionEventTiming } from '../db/reception-events/reception-event-batch.entity.ts';
import { CompanyReference, DocumentReference, FiscalReference } from '../workflows/search-attributes.ts';
import { workflowIds } from '../workflows/ids.ts';
import { summaries } from './summaries.ts';
import { beforeDeadline, type TemporalHandle } from './handle.ts';

/** How many workflow starts are in flight at once: a batch of 800 starts in well under a second, without flooding Temporal. */
const START_CONCURRENCY = 32;

/** Runs `work` over every item with at most `limit` in flight; the first failure is thrown once all have settled. */
async function eachWithConcurrency<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const lane = async () => {
    while (next < items.length && failure === null) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => {
        failure ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== null) throw failure;
}

/** The search attributes of an event's workflow: its company, document and CUFE. */
const eventAttributes = (companyId: string, event: Pick<QueuedReceptionEvent, 'documentId' | 'cufe'>) =>
  new TypedSearchAttributes([
    { key: CompanyReference, value: companyId },
    { key: DocumentReference, value: event.documentId },
    { key: FiscalReference, value: event.cufe },
  ]);

/** Every run records its round in its memo, so that a start can tell a run of the same round from an older one. */
const roundMemo = (event: Pick<QueuedReceptionEvent, 'round'>) => ({ round: event.round });

/**
 * Whether the event's latest run is of this round and running or done: a retried batch, or an earlier event's
 * wake-up, already started it, and replacing it would submit the event twice.
 */
async function startedThisRound(temporal: TemporalHandle, workflowId: string, round: number): Promise<boolean> {
  try {
    const run = await temporal.client.workflow.getHandle(workflowId).describe();
    return run.memo?.['round'] === round && (run.status.name === 'RUNNING' || run.status.name === 'COMPLETED');
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/**
 * Starts (or ensures) the `reception-event/<company>/<cufe>/<type>` workflow of each queued event, in parallel. A running
 * one is kept (a resend never starts a second); a resubmitted event replaces the closing run of its previous round,
 * once: a run of its own round is kept.
 */
export async function startReceptionEvents(
  temporal: TemporalHandle,
  companyId: string,
  events: readonly QueuedReceptionEvent[],
  timing: ReceptionEventTiming,
): Promise<void> {
  // An event queued behind an earlier one of its document starts delayed by its first re-check: the earlier one's
  // wake-up (a signal-with-start) ends the delay, so its first workflow task is the check, not a wait for the signal.
  const firstRank = new Map<string, number>();
  for (const event of events)
    firstRank.set(
      event.documentId,
      Math.min(firstRank.get(event.documentId) ?? Infinity, RESOLUTION_ORDER.indexOf(event.eventType)),
    );
  await eachWithConcurrency(events, START_CONCURRENCY, async (event) => {
    const queuedBehind = RESOLUTION_ORDER.indexOf(event.eventType) > firstRank.get(event.documentId)!;
    const workflowId = workflowIds.receptionEvent(companyId, event.cufe, event.eventType);
    if (event.resubmitted && (await startedThisRound(temporal, workflowId, event.round))) return;
    await temporal.client.workflow
      .start(receptionEvent, {
        workflowId,
        taskQueue: temporal.taskQueue,
        args: [
          { companyId, eventId: event.id, round: event.round, cufe: event.cufe, eventType: event.eventType, timing },
        ],
        staticSummary: summaries.receptionEvent(event.eventType, event.cufe),
        memo: roundMemo(event),
        ...(queuedBehind ? { startDelay: timing.wait.initialMs } : {}),
        // A round's run that completed has recorded its event: only a new round, or a run that failed, is started again.
        // (An earlier event's wake-up may have started this one, and it may have finished, before the batch got to it.)
        workflowIdReusePolicy: event.resubmitted
          ? WorkflowIdReusePolicy.ALLOW_DUPLICATE
          : WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
        workflowIdConflictPolicy: event.resubmitted
          ? WorkflowIdConflictPolicy.TERMINATE_EXISTING
          : WorkflowIdConflictPolicy.USE_EXISTING,
        typedSearchAttributes: eventAttributes(companyId, event),
      })
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
      });
  });
}

/**
 * Wakes the workflow of a processing event that may wait for an earlier one: signalled if it runs (ending a start
 * delay too, which only a signal-with-start does), started if the batch has not started it yet. A closed run is left
 * alone (its round is over).
 */
export async function wakeReceptionEvent(
  temporal: TemporalHandle,
  companyId: string,
  event: Omit<QueuedReceptionEvent, 'resubmitted'>,
  timing: ReceptionEventTiming,
): Promise<void> {
  await temporal.client.workflow.signalWithStart(receptionEvent, {
    workflowId: workflowIds.receptionEvent(companyId, event.cufe, event.eventType),
    taskQueue: temporal.taskQueue,
    args: [{ companyId, eventId: event.id, round: event.round, cufe: event.cufe, eventType: event.eventType, timing }],
    staticSummary: summaries.receptionEvent(event.eventType, event.cufe),
    signal: earlierEventSettledSignal,
    signalArgs: [],
    memo: roundMemo(event),
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    typedSearchAttributes: eventAttributes(companyId, event),
  });
}

/**
 * Starts the `reception-event-batch/<company>/<batch>` workflow of a queued batch, which starts its events' workflows.
 * Starting it again (the sweep, after a start that seemed to fail) joins the one already started, and once it has
 * run, the batch is gone and nothing is started twice.
 */
export async function startReceptionEventBatch(
  temporal: TemporalHandle,
  companyId: string,
  batchId: string,
): Promise<void> {
  const start = () =>
    temporal.client.workflow.start(receptionEventBatch, {
      workflowId: workflowIds.receptionEventBatch(companyId, batchId),
      taskQueue: temporal.taskQueue,
      args: [{ companyId, batchId }],
      staticSummary: summaries.receptionEventBatch(),
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
      // A run that completed removed its batch; one that failed or was terminated left it for a new run.
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      typedSearchAttributes: new TypedSearchAttributes([{ key: CompanyReference, value: companyId }]),
    });
  await beforeDeadline(temporal, start).catch((error: unknown) => {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  });
}
