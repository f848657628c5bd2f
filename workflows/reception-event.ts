import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineSignal,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ReceptionEventStatus, ReceptionEventType } from '../db/reception-events/reception-event.entity.ts';
import type { ReceptionEventTiming } from '../db/reception-events/reception-event-batch.entity.ts';

export interface ReceptionEventInput {
  companyId: string;
  eventId: string;
  /** The row's submission round this run serves; a later round makes it stand down. */
  round: number;
  /** The document's CUFE and the event type, which (with the company) name this workflow and its siblings. */
  cufe: string;
  eventType: ReceptionEventType;
  /** Wait to be woken (or for the first re-check) first: a run continued as new while waiting. */
  startWaiting?: boolean;
  /** When the wait began (epoch ms), carried across continue-as-new so that giving up still counts from it. */
  waitingSince?: number;
  timing: ReceptionEventTiming;
}

/** A signal, not an update: an earlier event of the same document reached its final state, so check again now. */
export const earlierEventSettledSignal = defineSignal('earlierEventSettled');

/**
 * One RADIAN event of one document, as workflow `reception-event/<company>/<cufe>/<type>`: waits while an earlier event
 * of the same document is still processing, checks DIAN's ordering rules against the read state (recording a
 * rejection without sending when they are broken), submits it, retrying transient failures with back-off, and records
 * the final state: accepted, rejected with DIAN's reason, or failed. The activity that records it wakes the next event
 * of the document.
 */
export async function receptionEvent(input: ReceptionEventInput): Promise<ReceptionEventStatus | 'superseded'> {
  const { wait, submit } = input.timing;
  // Local activities: each step is one short database read and one DIAN call, and a batch runs hundreds of them, so they
  // run inside the workflow task instead of a round trip through the server. Business rejections are answers, not
  // errors: only transient failures are thrown, and retried with back-off.
  const { advanceReceptionEvent } = proxyLocalActivities<Activities>({
    startToCloseTimeout: submit.timeoutMs,
    retry: {
      initialInterval: submit.initialMs,
      maximumInterval: submit.maxMs,
      backoffCoefficient: 2,
      maximumAttempts: submit.attempts,
      nonRetryableErrorTypes: ['DianRequestRefused'],
    },
  });
  const { failReceptionEvent } = proxyLocalActivities<Activities>({
    startToCloseTimeout: '30 seconds',
    retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
  });
  const subject = { companyId: input.companyId, eventId: input.eventId, round: input.round, timing: input.timing };

  let nudged = false;
  setHandler(earlierEventSettledSignal, () => {
    nudged = true;
  });
  const started = input.waitingSince ?? workflowInfo().startTime.getTime();
  let delay = wait.initialMs;
  // Woken by the earlier event's activity when it is final; the timer covers a wake-up that never comes.
  const waitForEarlier = async () => {
    await condition(() => nudged, delay);
    delay = Math.min(delay * 2, wait.maxMs);
  };

  if (input.startWaiting) await waitForEarlier();
  for (;;) {
    nudged = false;
    let step;
    try {
      step = await advanceReceptionEvent(subject);
    } catch (error) {
      const cause = error instanceof ActivityFailure ? error.cause : error;
      const detail = cause instanceof Error ? cause.message : String(cause);
      const refused = cause instanceof ApplicationFailure && cause.type === 'DianRequestRefused';
      return failReceptionEvent({
        ...subject,
        reason: refused ? detail : `DIAN could not be reached after ${submit.attempts} attempts: ${detail}`,
      });
    }
    if (step.action === 'done') return step.status;
    if (Date.now() - started >= wait.giveUpMs) {
      return failReceptionEvent({
        ...subject,
        reason: `Gave up waiting for event ${step.waitingFor.join(', ')} of the same document to reach a final state`,
      });
    }
    // A week of re-checks makes a long history: carry on in a fresh run, still waiting.
    if (workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof receptionEvent>({ ...input, startWaiting: true, waitingSince: started });
    await waitForEarlier();
  }
}

export interface ReceptionEventBatchInput {
  companyId: string;
  /** The batch queued with its events (`reception_event_batches`): its row lists them, with their pacing. */
  batchId: string;
}

/**
 * The events of one request, as workflow `reception-event-batch/<company>/<batch>`: starts the workflow of each event
 * (starting one that runs already is a no-op), retried until every one has started. The request answers once its
 * events and their batch are persisted; the API starts this workflow right after, and the sweep if it never did.
 */
export async function receptionEventBatch(input: ReceptionEventBatchInput): Promise<void> {
  // Starting 800 workflows takes seconds, and starting one again is a no-op: a worker that died mid-batch is retried
  // after a minute, not after ten with the batch's events held in `processing`.
  const { startReceptionEventWorkflows } = proxyActivities<Activities>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });
  await startReceptionEventWorkflows(input);
}
