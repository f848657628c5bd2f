import { LockMode } from '@mikro-orm/core';
import { companyEm } from '../../db/orm.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { PaymentDeps } from './payments.ts';
import { refuseUnlessPending } from './pending.ts';

/** Who cancels a payment: the operator (`ops payments cancel`), or the cancellation of its document (SAT's metadata). */
export type PaymentCancelCause = 'operator' | 'document_canceled';

/** Why a payment of a CFDI SAT cancelled is cancelled: one wording, whichever path gets there first. */
export const satCancellationReason = (uuid: string, canceledAt: string) =>
  `the CFDI ${uuid} was cancelled before SAT on ${canceledAt}`;

/**
 * Cancels a pending payment: `failed`, with the operator's reason (or, when its document was cancelled before the tax
 * authority, that reason), and `payment_gateway.status` `canceled`. Nothing was sent, so the payable's balance and the
 * document's payment status stay as they were. Idempotent.
 */
export async function cancelPayment(
  deps: Pick<PaymentDeps, 'orm'>,
  input: { companyId: string; paymentId: string; reason: string; cause?: PaymentCancelCause },
): Promise<{ status: Payment['status']; failureReason: string }> {
  return companyEm(deps.orm, input.companyId).transactional(async (tx) => {
    const payment = await tx.findOne(Payment, { id: input.paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const reason =
      input.cause === 'document_canceled' ? `Canceled: ${input.reason}` : `Canceled by the operator: ${input.reason}`;
    if (payment?.status === 'failed' && payment.paymentGateway?.['status'] === 'canceled')
      return { status: payment.status, failureReason: payment.failureReason ?? reason };
    refuseUnlessPending(payment, input.paymentId);
    payment!.status = 'failed';
    payment!.failureReason = reason;
    // The reason shows in the API with the status (the payment's detail has no failure_reason of its own).
    payment!.paymentGateway = {
      ...payment!.paymentGateway,
      status: 'canceled',
      canceled_at: new Date().toISOString(),
      failure_reason: reason,
    };
    return { status: payment!.status, failureReason: reason };
  });
}
