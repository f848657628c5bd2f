import {
  ActivityFailure,
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineUpdate,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { NewPaymentCommand, TransferState } from '../services/payments/payments.ts';

export interface PaymentProcessInput {
  companyId: string;
  paymentId: string;
  /** The wait between two checks of the transfer with the gateway. */
  pollIntervalMs: number;
  /** Set on a run continued as new: the payment exists and the gateway holds this transfer. */
  transferId?: string;
}

/** An update, not a signal: the API answers with the payment it created, or with the reason it was refused. */
export const createPaymentUpdate = defineUpdate<{ paymentId: string }, [NewPaymentCommand]>('createPayment');

// Writing the payment is retried briefly: the API is waiting, and a refusal is final.
const { createPayment } = proxyActivities<Activities>({
  startToCloseTimeout: '15 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '5 seconds', maximumAttempts: 5 },
});
// Talking to the gateway and writing the outcome are retried until they succeed: money must not be left half-recorded.
const { submitPayment, checkTransfer, recordPaymentOutcome } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['PaymentNotFound'] },
});

/**
 * One payment, as workflow `payment/<reference>`: created through its update (update-with-start, so the row and
 * its process come into being together), submitted to the gateway with the payment reference as idempotency key,
 * then checked every `pollIntervalMs` until the gateway settles or fails it; the outcome moves the payment to
 * `processed` or `failed` and keeps its payable and document current.
 */
export async function paymentProcess(input: PaymentProcessInput): Promise<'processed' | 'failed' | 'refused'> {
  let created = input.transferId !== undefined;
  let refused = false;

  setHandler(createPaymentUpdate, async (command) => {
    try {
      await createPayment({ ...command, companyId: input.companyId, paymentId: input.paymentId });
      created = true;
      return { paymentId: input.paymentId };
    } catch (error) {
      refused = true;
      // A business refusal reaches the API as itself, so it can answer with its code.
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.nonRetryable)
        throw error.cause;
      throw error;
    }
  });

  await condition(() => created || refused);
  if (refused) return 'refused';

  const subject = { companyId: input.companyId, paymentId: input.paymentId };
  let transfer: TransferState = input.transferId
    ? { transferId: input.transferId, status: 'processing', failureReason: null, settledAt: null, method: null }
    : await submitPayment(subject);
  while (transfer.status === 'processing' && transfer.transferId !== null) {
    if (workflowInfo().continueAsNewSuggested) {
      await condition(allHandlersFinished);
      await continueAsNew<typeof paymentProcess>({ ...input, transferId: transfer.transferId });
    }
    await sleep(input.pollIntervalMs);
    transfer = await checkTransfer({ ...subject, transferId: transfer.transferId });
  }
  await recordPaymentOutcome({ ...subject, transfer });
  return transfer.status === 'settled' ? 'processed' : 'failed';
}
