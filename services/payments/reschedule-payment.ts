import { LockMode } from '@mikro-orm/core';
import { isoDate } from '../../platform/money.ts';
import { companyEm } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import { recordEvent, undeliveredEventsOf } from '../webhooks/events.ts';
import { paymentRescheduledPayload } from '../webhooks/payloads.ts';
import { PaymentChangeRefused, refuseUnlessPending } from './pending.ts';
import type { PaymentDeps, PaySchedule } from './payments.ts';
import { releaseAt, todayIn } from './schedule.ts';

export interface Rescheduled extends PaySchedule {
  previousDueDate: string | null;
  newDueDate: string;
  /**
   * `payment.rescheduled` deliveries to start once the change is committed: those recorded with it or, when the date
   * was already set, any an earlier run recorded and did not get to start (it stopped between commit and start).
   */
  deliveries: DeliveryToStart[];
}

/**
 * Moves a pending payment's date (and its payable's due date) and, in the same transaction, records
 * `payment.rescheduled` for the company's subscribers. A day already past is refused; the same date again changes
 * nothing and notifies no one anew. The payment's workflow then waits for the new date.
 */
export async function reschedulePayment(
  deps: PaymentDeps,
  input: { companyId: string; paymentId: string; dueDate: string },
): Promise<Rescheduled> {
  return companyEm(deps.orm, input.companyId).transactional(async (tx) => {
    const payment = await tx.findOne(Payment, { id: input.paymentId }, { populate: ['company'] });
    refuseUnlessPending(payment, input.paymentId);
    const { country } = payment!.company;
    const today = todayIn(country);
    if (input.dueDate < today)
      throw new PaymentChangeRefused(
        'invalid_due_date',
        `${input.dueDate} has passed (today is ${today} in ${country})`,
      );
    const payable = await tx.findOneOrFail(
      Payable,
      { id: payment!.payable.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const schedule = {
      payDate: input.dueDate,
      releaseAt: releaseAt(input.dueDate, country, new Date(), deps.paymentDayMs),
    };
    const previousDueDate = isoDate(payment!.payDate);
    if (previousDueDate === input.dueDate)
      return {
        ...schedule,
        previousDueDate,
        newDueDate: input.dueDate,
        deliveries: await undeliveredEventsOf(tx, payment!.id, 'payment.rescheduled'),
      };
    payable.expirationDate = input.dueDate;
    payment!.payDate = input.dueDate;
    payment!.paymentGateway = { status: 'scheduled', pay_date: input.dueDate };
    const deliveries = await recordEvent(
      tx,
      payment!.company,
      'payment.rescheduled',
      payment!.id,
      paymentRescheduledPayload(payment!.id, previousDueDate, input.dueDate),
    );
    return { ...schedule, previousDueDate, newDueDate: input.dueDate, deliveries };
  });
}
