import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  defineSignal,
  defineUpdate,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { NewPaymentCommand, PaySchedule, TransferState } from '../services/payments/payments.ts';
import type { Rescheduled } from '../services/payments/reschedule-payment.ts';
import { WaitingSince } from './search-attributes.ts';

export interface PaymentProcessInput {
  companyId: string;
  paymentId: string;
  /** The wait between two checks of the transfer with the gateway. */
  pollIntervalMs: number;
  /** Set on a run continued as new while the gateway settles: the payment exists and the gateway holds this transfer. */
  transferId?: string;
}

/** The batch's bulk transfer: this payment's transfer in it, or why the payment left the batch (it goes on alone). */
export type BatchOutcome = { transfer: TransferState } | { left: string };

/** An update, not a signal: the API answers with the payment it created, or with the reason it was refused. */
export const createPaymentUpdate = defineUpdate<{ paymentId: string }, [NewPaymentCommand]>('createPayment');
/** An update: the operator learns at once whether the payment could still move, and its new date. */
export const reschedulePaymentUpdate = defineUpdate<Omit<Rescheduled, 'deliveries'>, [{ dueDate: string }]>(
  'reschedulePayment',
);
/** An update: canceling is refused once money may have left. `cause` says who cancels (the operator by default). */
export const cancelPaymentUpdate = defineUpdate<
  { status: 'failed'; failureReason: string },
  [{ reason: string; cause?: 'operator' | 'document_canceled' }]
>('cancelPayment');
/** An update from the batch's release: the payment joins (and no longer goes alone) unless it is already on its way. */
export const joinBatchUpdate = defineUpdate<{ joined: true }, [{ batchId: string }]>('joinBatch');
/** The batch handed its payments to the gateway: this payment's transfer, or why it left the batch. */
export const batchOutcomeSignal = defineSignal<[BatchOutcome]>('batchOutcome');
/** A bank account of the beneficiary was validated or rejected: a payment waiting for one looks again. */
export const accountChangedSignal = defineSignal('accountChanged');

/** Why a change of the payment is refused, named as the operator CLI's error codes. */
type PaymentChangeRefusal = 'payment_in_process' | 'payment_final' | 'payment_in_batch';

// Writing the payment is retried briefly: the API is waiting, and a refusal is final.
const { createPayment, reschedulePayment, cancelPayment } = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 5 },
});
// Talking to the gateway and writing the outcome are retried until they succeed: money must not be left half-recorded.
const { submitPayment, checkTransfer, recordPaymentOutcome, leavePaymentBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['PaymentNotFound'] },
});

const refused = (code: PaymentChangeRefusal, message: string) =>
  ApplicationFailure.create({ type: code, message, nonRetryable: true });

/** A business refusal of an activity reaches the caller as itself, so that it can answer with its code. */
function asRefusal(error: unknown): never {
  if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.nonRetryable)
    throw error.cause;
  throw error;
}

/**
 * One payment, as workflow `payment/<reference>`: created through its update (update-with-start, so the row and its
 * process come into being together), it waits, on a durable timer, for its pay date (the payable's due date unless
 * another was given; today or earlier: at once), and for a validated bank account of its beneficiary (a validation
 * wakes it). Then it goes to the gateway, alone or in a batch, with its reference as idempotency key, and is checked
 * every `pollIntervalMs` until the gateway settles or fails it. Until it goes, the operator may reschedule or cancel it.
 */
export async function paymentProcess(
  input: PaymentProcessInput,
): Promise<'processed' | 'failed' | 'refused' | 'canceled'> {
  type Stage = 'creating' | 'refused' | 'pending' | 'batched' | 'submitting' | 'submitted' | 'canceled';
  // An object, not a variable: handlers change it while the main code awaits, and the type checker must not narrow it.
  const state: { stage: Stage } = { stage: input.transferId ? 'submitted' : 'creating' };
  let schedule: PaySchedule | null = null;
  /** A reschedule or a cancellation is being written: the payment does not go meanwhile. */
  let changing = false;
  /** Something to look at again: a new date, or an account's validation. */
  let woken = false;
  let batchId: string | null = null;
  let batchOutcome: BatchOutcome | null = null;
  let transfer: TransferState | null = input.transferId
    ? { transferId: input.transferId, status: 'processing', failureReason: null, settledAt: null, method: null }
    : null;
  const subject = { companyId: input.companyId, paymentId: input.paymentId };

  /**
   * The payment may still change only while nothing has been handed to the gateway. While a hand-over is being tried
   * the answer is not known yet (without a validated account it stays pending): handlers wait for it (`settled`).
   */
  const stillPending = () => {
    if (state.stage === 'submitted')
      throw refused('payment_in_process', 'The payment is on its way to the gateway: it can no longer change');
    if (state.stage === 'canceled') throw refused('payment_final', 'The payment was canceled');
    if (state.stage === 'batched') throw refused('payment_in_batch', `The payment goes with batch ${batchId}`);
  };
  const settled = () => state.stage !== 'creating' && state.stage !== 'submitting' && !changing;
  /** Runs a change of a pending payment; the payment does not go while it is written. */
  const change = async <T>(write: () => Promise<T>): Promise<T> => {
    await condition(settled);
    stillPending();
    changing = true;
    try {
      return await write().catch(asRefusal);
    } finally {
      changing = false;
    }
  };

  setHandler(createPaymentUpdate, async (command) => {
    try {
      schedule = await createPayment({ ...command, ...subject });
      state.stage = 'pending';
      return { paymentId: input.paymentId };
    } catch (error) {
      state.stage = 'refused';
      return asRefusal(error);
    }
  });
  setHandler(
    reschedulePaymentUpdate,
    (command) =>
      change(async () => {
        const rescheduled = await reschedulePayment({ ...subject, ...command });
        schedule = rescheduled;
        woken = true;
        return rescheduled;
      }),
    { validator: (_command: unknown) => stillPending() },
  );
  setHandler(
    cancelPaymentUpdate,
    (command) =>
      change(async () => {
        const canceled = await cancelPayment({ ...subject, ...command });
        state.stage = 'canceled';
        return { status: 'failed' as const, failureReason: canceled.failureReason };
      }),
    { validator: (_command: unknown) => stillPending() },
  );
  setHandler(
    joinBatchUpdate,
    async ({ batchId: id }) => {
      await condition(settled);
      stillPending();
      state.stage = 'batched';
      batchId = id;
      return { joined: true as const };
    },
    { validator: (_command: unknown) => stillPending() },
  );
  setHandler(batchOutcomeSignal, (outcome) => {
    if (state.stage === 'batched') batchOutcome = outcome;
  });
  setHandler(accountChangedSignal, () => {
    woken = true;
  });

  await condition(() => state.stage !== 'creating');
  if (state.stage === 'refused') return 'refused';

  while (state.stage === 'pending' || state.stage === 'batched') {
    if (state.stage === 'batched') {
      setCurrentDetails(`In batch ${batchId}: waiting for the gateway to take it`);
      await condition(() => batchOutcome !== null);
      const outcome: BatchOutcome = batchOutcome!;
      if ('transfer' in outcome) {
        transfer = outcome.transfer;
        state.stage = 'submitted';
        break;
      }
      // Left out of the batch (its account was no longer validated): it goes on by itself.
      await leavePaymentBatch(subject);
      state.stage = 'pending';
      batchId = batchOutcome = null;
      continue;
    }
    // The pay date: a durable timer, moved by a reschedule.
    const due = () => Date.now() >= schedule!.releaseAt;
    while (state.stage === 'pending' && (changing || !due())) {
      woken = false;
      setCurrentDetails(`Pay date ${new Date(schedule!.releaseAt).toISOString().slice(0, 10)}`);
      await condition(
        () => state.stage !== 'pending' || woken || (!changing && due()),
        Math.max(0, schedule!.releaseAt - Date.now()),
      );
    }
    if (state.stage !== 'pending') continue;
    woken = false;
    state.stage = 'submitting';
    const submitted = await submitPayment.executeWithOptions(
      { summary: 'Hand the payment to the gateway, if its beneficiary has a validated account' },
      [subject],
    );
    if ('waiting' in submitted) {
      // No validated account: nothing was sent; the payment says why, and waits for a validation (or a change).
      state.stage = 'pending';
      setCurrentDetails(`Waiting for a validated bank account: ${submitted.waiting}`);
      // Since release 0.1.0: runs it started replay without the attribute (docs/reliability.md, "Versioning").
      const marked = patched('waiting-since');
      if (marked) upsertSearchAttributes([{ key: WaitingSince, value: new Date() }]);
      await condition(() => state.stage !== 'pending' || woken);
      if (marked) upsertSearchAttributes([{ key: WaitingSince, value: null }]);
      continue;
    }
    transfer = submitted;
    state.stage = 'submitted';
  }
  if (state.stage === 'canceled') return 'canceled';

  if (transfer!.status === 'processing')
    setCurrentDetails(
      `At the gateway as transfer ${transfer!.transferId}: checked every ${input.pollIntervalMs / 1000} s`,
    );
  while (transfer!.status === 'processing' && transfer!.transferId !== null) {
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof paymentProcess>({ ...input, transferId: transfer!.transferId });
    }
    await sleep(input.pollIntervalMs, { summary: 'Until the next check with the gateway' });
    transfer = await checkTransfer.executeWithOptions({ summary: `Ask the gateway about ${transfer!.transferId}` }, [
      { ...subject, transferId: transfer!.transferId },
    ]);
  }
  await recordPaymentOutcome({ ...subject, transfer: transfer! });
  await condition(allHandlersFinished);
  return transfer!.status === 'settled' ? 'processed' : 'failed';
}
