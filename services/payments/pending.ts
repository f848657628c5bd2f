import { Refusal } from '../../platform/refusal.ts';
import type { Payment } from '../../db/payments/payment.entity.ts';

/** Why a payment's date, its release or its batch cannot change. */
export type PaymentChangeRefusal = 'payment_not_found' | 'payment_in_process' | 'payment_final' | 'invalid_due_date';

export class PaymentChangeRefused extends Refusal<PaymentChangeRefusal> {}

/** A payment whose money may still not move: pending, not yet handed to the gateway. */
export function refuseUnlessPending(payment: Pick<Payment, 'status'> | null, paymentId: string): void {
  if (!payment) throw new PaymentChangeRefused('payment_not_found', `No payment with reference ${paymentId}`);
  if (payment.status === 'in_process')
    throw new PaymentChangeRefused('payment_in_process', 'The payment is in_process: the gateway holds its transfer');
  if (payment.status !== 'pending')
    throw new PaymentChangeRefused('payment_final', `The payment is ${payment.status}: it can no longer change`);
}
