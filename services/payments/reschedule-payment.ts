import { LockMode } from '@mikro-orm/core';
import { isoDate } from '../../platform/money.ts';
import type { EntityManager } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { recordEvent, undeliveredEventsOf } from '../webhooks/events.ts';
import { paymentRescheduledPayload } from '../webhooks/payloads.ts';

export class RescheduleRefused extends Error {
  readonly code: 'payment_not_found' | 'payment_final';
  constructor(code: RescheduleRefused['code'], message: string) {
    super(message);
    this.code = code;
  }
}

export interface Rescheduled {
  previousDueDate: string | null;
  newDueDate: string;
  /**
   * `payment.rescheduled` deliveries to start once the change is committed: those recorded with it or, when the date
   * was already set, any an earlier run recorded and did not get to start (it stopped between commit and start).
   */
  deliveries: WebhookDelivery[];
}

/**
 * Moves the due date of a payment's payable and, in the same transaction, records `payment.rescheduled` for the
 * company's subscribers (the payment is the event's subject). The same date again changes nothing and notifies
 * no one anew; a payment already processed or failed is refused, its due date no longer means anything.
 */
export async function reschedulePayment(
  em: EntityManager,
  input: { paymentId: string; dueDate: string },
): Promise<Rescheduled> {
  return em.transactional(async (tx) => {
    const payment = await tx.findOne(Payment, { id: input.paymentId }, { populate: ['company'] });
    if (!payment) throw new RescheduleRefused('payment_not_found', `No payment with reference ${input.paymentId}`);
    if (payment.status === 'processed' || payment.status === 'failed')
      throw new RescheduleRefused(
        'payment_final',
        `The payment is ${payment.status}: its due date can no longer change`,
      );
    const payable = await tx.findOneOrFail(
      Payable,
      { id: payment.payable.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const previousDueDate = isoDate(payable.expirationDate);
    if (previousDueDate === input.dueDate)
      return {
        previousDueDate,
        newDueDate: input.dueDate,
        deliveries: await undeliveredEventsOf(tx, payment.id, 'payment.rescheduled'),
      };
    payable.expirationDate = input.dueDate;
    const deliveries = await recordEvent(
      tx,
      payment.company,
      'payment.rescheduled',
      payment.id,
      paymentRescheduledPayload(payment.id, previousDueDate, input.dueDate),
    );
    return { previousDueDate, newDueDate: input.dueDate, deliveries };
  });
}
