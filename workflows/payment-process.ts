import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  setCurrentDetails,
  sleep,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { NewPaymentCommand, PaySchedule, TransferState } from '../services/payments/payments.ts';
import type { BatchOutcome, PaymentProcessInput, PaymentProcessResult, paymentProcess } from './payment.ts';
import { WaitingSince } from './search-attributes.ts';

/** Why a change of the payment is refused, named as the operator CLI's error codes. */
type PaymentChangeRefusal = 'payment_in_process' | 'payment_final' | 'payment_in_batch';

/**
 * Where the payment stands, with what is known there. A reschedule moves `schedule` in place, so that the run finds
 * the newest date when the payment is pending again.
 */
type PaymentState =
  /** Its update is writing it. */
  | { stage: 'creating' }
  | { stage: 'refused' }
  /** Written: it waits for its pay date and a validated bank account of its beneficiary. */
  | { stage: 'pending'; schedule: PaySchedule }
  /** Being handed to the gateway; without a validated account it is pending again. */
  | { stage: 'submitting'; schedule: PaySchedule }
  /** Goes with a batch, unless the batch leaves it out. */
  | { stage: 'batched'; schedule: PaySchedule; batchId: string }
  /** The gateway holds its transfer (or refused it outright). */
  | { stage: 'submitted'; transfer: TransferState }
  | { stage: 'canceled' };
type Stage<Name extends PaymentState['stage']> = Extract<PaymentState, { stage: Name }>;

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

const isDue = (schedule: PaySchedule) => Date.now() >= schedule.releaseAt;

/**
 * The state of one payment's process and the handlers that change it (the workflow `paymentProcess` wires them to its
 * messages). Changes wait while the payment is being written or handed over, and are refused once it has gone.
 */
export class PaymentProcess {
  private state: PaymentState;
  /** A reschedule or a cancellation is being written: the payment does not go meanwhile. */
  private changing = false;
  /** Something to look at again: a new date, or an account's validation. */
  private woken = false;
  /** What the batch did with the payment: it comes while the payment is batched, and is kept until it leaves. */
  private batchOutcome: BatchOutcome | null = null;

  private readonly input: PaymentProcessInput;
  private readonly subject: { companyId: string; paymentId: string };

  constructor(input: PaymentProcessInput) {
    this.input = input;
    this.subject = { companyId: input.companyId, paymentId: input.paymentId };
    this.state = input.transferId
      ? {
          stage: 'submitted',
          transfer: {
            transferId: input.transferId,
            status: 'processing',
            failureReason: null,
            settledAt: null,
            method: null,
          },
        }
      : { stage: 'creating' };
  }

  /**
   * The changes' validator: the payment may still change only while nothing has been handed to the gateway. While a
   * hand-over is being tried the answer is not known yet (without a validated account it stays pending): the changes
   * wait for it (`settled`).
   */
  validateChange(): void {
    if (this.state.stage === 'submitted')
      throw refused('payment_in_process', 'The payment is on its way to the gateway: it can no longer change');
    if (this.state.stage === 'canceled') throw refused('payment_final', 'The payment was canceled');
    if (this.state.stage === 'batched')
      throw refused('payment_in_batch', `The payment goes with batch ${this.state.batchId}`);
  }

  private get settled(): boolean {
    return this.state.stage !== 'creating' && this.state.stage !== 'submitting' && !this.changing;
  }

  /** Writes the payment (update-with-start): the API answers with it, or with the reason it was refused. */
  async create(command: NewPaymentCommand): Promise<{ paymentId: string }> {
    try {
      const schedule = await createPayment({ ...command, ...this.subject });
      this.state = { stage: 'pending', schedule };
      return { paymentId: this.input.paymentId };
    } catch (error) {
      this.state = { stage: 'refused' };
      return asRefusal(error);
    }
  }

  /** Moves the pay date, and with it the timer the run waits on. */
  reschedule(command: { dueDate: string }) {
    return this.change(async () => {
      const rescheduled = await reschedulePayment({ ...this.subject, ...command });
      if ('schedule' in this.state) this.state.schedule = rescheduled;
      this.woken = true;
      return rescheduled;
    });
  }

  /** Cancels the payment; `cause` says who cancels (the operator by default). */
  cancel(command: { reason: string; cause?: 'operator' | 'document_canceled' }) {
    return this.change(async () => {
      const canceled = await cancelPayment({ ...this.subject, ...command });
      this.state = { stage: 'canceled' };
      return { status: 'failed' as const, failureReason: canceled.failureReason };
    });
  }

  /** Runs a change of a pending payment; the payment does not go while it is written. */
  private async change<T>(write: () => Promise<T>): Promise<T> {
    await condition(() => this.settled);
    this.validateChange();
    this.changing = true;
    try {
      return await write().catch(asRefusal);
    } finally {
      this.changing = false;
    }
  }

  /** The batch's release: the payment goes with the batch, and no longer alone. */
  async joinBatch({ batchId }: { batchId: string }): Promise<{ joined: true }> {
    await condition(() => this.settled);
    this.validateChange();
    // Past the validator and `settled`, only a refused payment (a retried create that failed) is not pending: it has
    // no pay date to go back to, should it leave the batch.
    if (this.state.stage !== 'pending') throw refused('payment_final', 'The payment was refused');
    this.state = { stage: 'batched', schedule: this.state.schedule, batchId };
    return { joined: true };
  }

  /** The batch handed its payments to the gateway: this payment's transfer, or why it left the batch. */
  takeBatchOutcome(outcome: BatchOutcome): void {
    if (this.state.stage === 'batched') this.batchOutcome = outcome;
  }

  /** A bank account of the beneficiary was validated or rejected: a payment waiting for one looks again. */
  wake(): void {
    this.woken = true;
  }

  /**
   * Waits for the payment to be written, then for its pay date and a validated account (or for its batch), hands it
   * to the gateway and checks its transfer until the gateway settles or fails it.
   */
  async run(): Promise<PaymentProcessResult> {
    await condition(() => this.state.stage !== 'creating');
    if (this.state.stage === 'refused') return 'refused';

    for (;;) {
      if (this.state.stage === 'submitted') break;
      if (this.state.stage === 'canceled') return 'canceled';
      if (this.state.stage === 'batched') {
        const batched: Stage<'batched'> = this.state;
        setCurrentDetails(`In batch ${batched.batchId}: waiting for the gateway to take it`);
        while (this.batchOutcome === null) await condition(() => this.batchOutcome !== null);
        const outcome = this.batchOutcome;
        if ('transfer' in outcome) {
          this.state = { stage: 'submitted', transfer: outcome.transfer };
          break;
        }
        // Left out of the batch (its account was no longer validated): it goes on by itself.
        await leavePaymentBatch(this.subject);
        this.state = { stage: 'pending', schedule: batched.schedule };
        this.batchOutcome = null;
        continue;
      }
      // Only a retried create that failed ('refused') gets here: with no pay date to wait on, the workflow task fails.
      if (this.state.stage !== 'pending') throw new Error(`Payment ${this.input.paymentId} is ${this.state.stage}`);

      // The pay date: a durable timer, moved by a reschedule.
      while (this.state.stage === 'pending' && (this.changing || !isDue(this.state.schedule))) {
        const { releaseAt } = this.state.schedule;
        this.woken = false;
        setCurrentDetails(`Pay date ${new Date(releaseAt).toISOString().slice(0, 10)}`);
        await condition(
          () => this.state.stage !== 'pending' || this.woken || (!this.changing && isDue(this.state.schedule)),
          Math.max(0, releaseAt - Date.now()),
        );
      }
      if (this.state.stage !== 'pending') continue;
      this.woken = false;
      const submitting: Stage<'submitting'> = { stage: 'submitting', schedule: this.state.schedule };
      this.state = submitting;
      const submitted = await submitPayment.executeWithOptions(
        { summary: 'Hand the payment to the gateway, if its beneficiary has a validated account' },
        [this.subject],
      );
      if ('waiting' in submitted) {
        // No validated account: nothing was sent; the payment says why, and waits for a validation (or a change).
        this.state = { stage: 'pending', schedule: submitting.schedule };
        setCurrentDetails(`Waiting for a validated bank account: ${submitted.waiting}`);
        // Since release 0.1.0: runs it started replay without the attribute (docs/reliability.md, "Versioning").
        const marked = patched('waiting-since');
        if (marked) upsertSearchAttributes([{ key: WaitingSince, value: new Date() }]);
        await condition(() => this.state.stage !== 'pending' || this.woken);
        if (marked) upsertSearchAttributes([{ key: WaitingSince, value: null }]);
        continue;
      }
      this.state = { stage: 'submitted', transfer: submitted };
      break;
    }

    let { transfer } = this.state;
    const { pollIntervalMs } = this.input;
    if (transfer.status === 'processing')
      setCurrentDetails(`At the gateway as transfer ${transfer.transferId}: checked every ${pollIntervalMs / 1000} s`);
    while (transfer.status === 'processing' && transfer.transferId !== null) {
      if (workflowInfo().continueAsNewSuggested) {
        await condition(allHandlersFinished);
        await continueAsNew<typeof paymentProcess>({ ...this.input, transferId: transfer.transferId });
      }
      await sleep(pollIntervalMs, { summary: 'Until the next check with the gateway' });
      transfer = await checkTransfer.executeWithOptions({ summary: `Ask the gateway about ${transfer.transferId}` }, [
        { ...this.subject, transferId: transfer.transferId },
      ]);
    }
    await recordPaymentOutcome({ ...this.subject, transfer });
    await condition(allHandlersFinished);
    return transfer.status === 'settled' ? 'processed' : 'failed';
  }
}
