import { z } from 'zod';
import { RescheduleRefused, reschedulePayment } from '../../services/payments/reschedule-payment.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { reference, required } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError, notFound, usage } from '../errors.ts';

/** Payments: what operators change from the platform side. */
export const paymentCommands: Command[] = [
  {
    group: 'payments',
    action: 'reschedule',
    usage: 'payments reschedule --payment REF --due-date YYYY-MM-DD',
    options: { payment: { type: 'string' }, 'due-date': { type: 'string' } },
    async run(input, context) {
      const paymentId = reference(input, 'payment');
      const dueDate = required(input, 'due-date');
      if (!z.iso.date().safeParse(dueDate).success) throw usage('--due-date must be a date, YYYY-MM-DD');
      const orm = await context.orm();
      const found = await systemEm(orm).findOne(Payment, { id: paymentId }, { fields: ['id', 'company'] });
      if (!found) throw notFound('payment', paymentId);
      try {
        // The company's own scope: the event goes to that company's subscribers only.
        const rescheduled = await reschedulePayment(companyEm(orm, found.company.id), { paymentId, dueDate });
        await (await context.processes()).startDeliveries(rescheduled.deliveries);
        return {
          payment: paymentId,
          previous_due_date: rescheduled.previousDueDate,
          new_due_date: rescheduled.newDueDate,
        };
      } catch (error) {
        if (error instanceof RescheduleRefused) throw new CliError(error.code, error.message);
        throw error;
      }
    },
  },
];
