import { LockMode } from '@mikro-orm/core';
import { companyEm } from '../../db/orm.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { PaymentDeps } from './payments.ts';
import { refuseUnlessPending } from './pending.ts';

/**
 * Cancels a pending payment: `failed`, with the operator's reason, and `payment_gateway.status` `canceled`. Nothing
 * was sent, so the payable's balance and the document's payment status stay as they were. Idempotent.
 */
export async function cancelPayment(
  deps: Pick<PaymentDeps, 'orm'>,
  input: { companyId: string; paymentId: string; reason: string },
): Promise<{ status: Payment['status']; failureReason: string }> {
  return companyEm(deps.orm, input.companyId).transactional(async (tx) => {
    const payment = await tx.findOne(Payment, { id: input.paymentId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const reason = `Canceled by the operator: ${input.reason}`;
    if (payment?.status === 'failed' && payment.paymentGateway?.['status'] === 'canceled')
      return { status: payment.status, failureReason: payment.failureReason ?? reason };
    refuseUnlessPending(payment, input.paymentId);
    payment!.status = 'failed';
    payment!.failureReason = reason;
    payment!.paymentGateway = { ...payment!.paymentGateway, status: 'canceled', canceled_at: new Date().toISOString() };
    return { status: payment!.status, failureReason: reason };
  });
}
