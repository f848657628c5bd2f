import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { refusalOf } from './refusals.ts';
import { bankAccountValidation, type BankAccountValidationInput } from '../workflows/bank-account-validation.ts';
import {
  cancelPaymentUpdate,
  createPaymentUpdate,
  joinBatchUpdate,
  paymentProcess,
  reschedulePaymentUpdate,
  type PaymentProcessInput,
} from '../workflows/payment.ts';
import { paymentBatch, type PaymentBatchInput } from '../workflows/payment-batch.ts';
import { type NewPaymentCommand } from '../services/payments/payments.ts';
import type { PaymentCancelCause } from '../services/payments/cancel-payment.ts';
import type { PaymentCancellation } from '../services/processes.ts';
import { CompanyReference } from '../workflows/search-attributes.ts';
import { paymentSummary, summaries } from './summaries.ts';
import { beforeDeadline, type TemporalHandle } from './handle.ts';
import { workflowIds } from '../workflows/ids.ts';

/**
 * What to do when `payment/<reference>` has already run and ended: refuse (the default: a payment's process runs
 * once), or start it again, for a reference whose earlier process ended without writing its payment (refused).
 */
export type EndedPaymentProcess = 'refuse' | 'start-again';

/**
 * Creates a payment through its own `payment/<reference>` workflow (update-with-start): the workflow starts and
 * its update writes the payment, so no payment exists without the process that pays it. Resolves once written.
 * The same reference again (a retry) joins the running workflow, whose update finds the payment already written;
 * if that workflow has ended, `WorkflowExecutionAlreadyStartedError` unless `ended` is `start-again`.
 */
export async function createPaymentThroughProcess(
  temporal: TemporalHandle,
  input: PaymentProcessInput,
  command: NewPaymentCommand,
  ended: EndedPaymentProcess = 'refuse',
): Promise<{ paymentId: string }> {
  const start = new WithStartWorkflowOperation(paymentProcess, {
    workflowId: workflowIds.payment(input.paymentId),
    taskQueue: temporal.taskQueue,
    args: [input],
    staticSummary: paymentSummary(command),
    typedSearchAttributes: new TypedSearchAttributes([{ key: CompanyReference, value: input.companyId }]),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy:
      ended === 'refuse' ? WorkflowIdReusePolicy.REJECT_DUPLICATE : WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
  return beforeDeadline(temporal, () =>
    temporal.client.workflow.executeUpdateWithStart(createPaymentUpdate, {
      args: [command],
      startWorkflowOperation: start,
    }),
  );
}

/** Starts `bank-account-validation/<account>/<attempt>` once: starting the same attempt again is a no-op. */
export async function startBankAccountValidation(
  temporal: TemporalHandle,
  input: BankAccountValidationInput,
): Promise<void> {
  try {
    await beforeDeadline(temporal, () =>
      temporal.client.workflow.start(bankAccountValidation, {
        workflowId: workflowIds.bankAccountValidation(input.accountId, input.attempt),
        taskQueue: temporal.taskQueue,
        args: [input],
        staticSummary: summaries.bankAccountValidation(input.attempt),
        typedSearchAttributes: new TypedSearchAttributes([{ key: CompanyReference, value: input.companyId }]),
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Moves a pending payment's date through its workflow, which moves its timer; refused once the payment is on its way. */
export async function reschedulePaymentThroughProcess(temporal: TemporalHandle, paymentId: string, dueDate: string) {
  const handle = temporal.client.workflow.getHandle<typeof paymentProcess>(workflowIds.payment(paymentId));
  return beforeDeadline(temporal, () => handle.executeUpdate(reschedulePaymentUpdate, { args: [{ dueDate }] }));
}

/**
 * Cancels a pending payment through its workflow; refused once the payment is on its way. The update's command reaches
 * the activity that writes the cancellation whole, `cause` included (the operator's by default).
 */
export async function cancelPaymentThroughProcess(
  temporal: TemporalHandle,
  paymentId: string,
  reason: string,
  cause: PaymentCancelCause = 'operator',
) {
  const handle = temporal.client.workflow.getHandle<typeof paymentProcess>(workflowIds.payment(paymentId));
  const command = { reason, cause };
  return beforeDeadline(temporal, () => handle.executeUpdate(cancelPaymentUpdate, { args: [command] }));
}

/** A cancellation by the product itself (a document cancelled before SAT): its process's refusal is an answer. */
export async function cancelPaymentOfCanceledDocument(
  temporal: TemporalHandle,
  paymentId: string,
  reason: string,
): Promise<PaymentCancellation> {
  try {
    const canceled = await cancelPaymentThroughProcess(temporal, paymentId, reason, 'document_canceled');
    return { canceled: true, failureReason: canceled.failureReason };
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) return { canceled: false, code: refusal.code, message: refusal.message };
    if (error instanceof WorkflowNotFoundError)
      return { canceled: false, code: 'payment_final', message: 'The payment has ended' };
    throw error;
  }
}

/** Asks a pending payment to go with a batch: false when its workflow refuses (it is on its way, or no longer runs). */
export async function joinPaymentBatch(temporal: TemporalHandle, paymentId: string, batchId: string): Promise<boolean> {
  const handle = temporal.client.workflow.getHandle<typeof paymentProcess>(workflowIds.payment(paymentId));
  try {
    await beforeDeadline(temporal, () => handle.executeUpdate(joinBatchUpdate, { args: [{ batchId }] }));
    return true;
  } catch (error) {
    if (refusalOf(error) || error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** Starts `payment-batch/<reference>`, which hands the batch's payments to the gateway as one bulk transfer. */
export async function startPaymentBatch(temporal: TemporalHandle, input: PaymentBatchInput): Promise<void> {
  await beforeDeadline(temporal, () =>
    temporal.client.workflow.start(paymentBatch, {
      workflowId: workflowIds.paymentBatch(input.batchId),
      taskQueue: temporal.taskQueue,
      args: [input],
      staticSummary: summaries.paymentBatch(input.paymentIds.length),
      typedSearchAttributes: new TypedSearchAttributes([{ key: CompanyReference, value: input.companyId }]),
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    }),
  );
}
