import { getExternalWorkflowHandle, proxyActivities } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { workflowIds } from './ids.ts';
import { batchOutcomeSignal } from './payment.ts';

export interface PaymentBatchInput {
  companyId: string;
  batchId: string;
  paymentIds: string[];
}

const { joinPaymentsToBatch, submitPaymentBatch } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * An operator's batch, as workflow `payment-batch/<reference>`: each payment's own workflow is asked to join (one already
 * on its way stays out and leaves the batch), then the joined payments go to the gateway as one bulk transfer, and each
 * payment's workflow is told its transfer, which it follows to its end as if it had gone alone. A payment is never
 * handed over twice: its workflow lets only one release through, and the gateway keys each transfer by the payment.
 */
export async function paymentBatch(input: PaymentBatchInput): Promise<{ released: number; left: number }> {
  const joined = await joinPaymentsToBatch(input);
  const outcomes = joined.length ? await submitPaymentBatch({ ...input, paymentIds: joined }) : {};
  for (const paymentId of joined) {
    const outcome = outcomes[paymentId];
    await getExternalWorkflowHandle(workflowIds.payment(paymentId)).signal(
      batchOutcomeSignal,
      outcome
        ? { transfer: outcome }
        : { left: 'Its beneficiary had no validated bank account when the batch was released' },
    );
  }
  return { released: Object.keys(outcomes).length, left: input.paymentIds.length - Object.keys(outcomes).length };
}
