import { defineSignal, defineUpdate, setHandler } from '@temporalio/workflow';
import type { NewPaymentCommand, TransferState } from '../services/payments/payments.ts';
import type { Rescheduled } from '../services/payments/reschedule-payment.ts';
import { PaymentProcess } from './payment-process.ts';

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

export type PaymentProcessResult = 'processed' | 'failed' | 'refused' | 'canceled';

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

/**
 * One payment, as workflow `payment/<reference>`: created through its update (update-with-start, so the row and its
 * process come into being together), it waits, on a durable timer, for its pay date (the payable's due date unless
 * another was given; today or earlier: at once), and for a validated bank account of its beneficiary (a validation
 * wakes it). Then it goes to the gateway, alone or in a batch, with its reference as idempotency key, and is checked
 * every `pollIntervalMs` until the gateway settles or fails it. Until it goes, the operator may reschedule or cancel it.
 */
export function paymentProcess(input: PaymentProcessInput): Promise<PaymentProcessResult> {
  const payment = new PaymentProcess(input);
  const validator = (_command: unknown) => payment.validateChange();
  setHandler(createPaymentUpdate, (command) => payment.create(command));
  setHandler(reschedulePaymentUpdate, (command) => payment.reschedule(command), { validator });
  setHandler(cancelPaymentUpdate, (command) => payment.cancel(command), { validator });
  setHandler(joinBatchUpdate, (command) => payment.joinBatch(command), { validator });
  setHandler(batchOutcomeSignal, (outcome) => payment.takeBatchOutcome(outcome));
  setHandler(accountChangedSignal, () => payment.wake());
  // Not async: the run's own promise adds no microtask turn, so its completion keeps its place among its task's commands.
  return payment.run();
}
