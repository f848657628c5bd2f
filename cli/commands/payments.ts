import { z } from 'zod';
import { systemEm } from '../../db/orm.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { createPaymentBatch } from '../../services/payments/batches.ts';
import { refuseUnlessPending, PaymentChangeRefused } from '../../services/payments/pending.ts';
import {
  cancelPaymentThroughProcess,
  reschedulePaymentThroughProcess,
  startPaymentBatch,
} from '../../temporal/payments.ts';
import { throughWorkflow } from '../../temporal/refusals.ts';
import { optional, reference, required } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import type { CliContext } from '../context.ts';
import { CliError, usage } from '../errors.ts';

/** `--due-date`, as a calendar day. */
function day(input: CommandInput, flag: string): string {
  const value = required(input, flag);
  if (!z.iso.date().safeParse(value).success)
    throw new CliError('invalid_date', `--${flag} must be a calendar date, YYYY-MM-DD (got ${value})`, 2);
  return value;
}

/**
 * A change of a payment through its workflow; its refusals (and those of the activity that writes it) answer with
 * their codes. A payment whose workflow has ended is final, or gone.
 */
async function changeThroughWorkflow<T>(context: CliContext, paymentId: string, change: () => Promise<T>): Promise<T> {
  const found = await systemEm(await context.orm()).findOne(Payment, { id: paymentId }, { fields: ['id', 'status'] });
  refuseUnlessPending(found, paymentId);
  return throughWorkflow(change, () => new PaymentChangeRefused('payment_final', 'The payment has ended'));
}

/** Payments: what operators change from the platform side. */
export const paymentCommands: Command[] = [
  {
    group: 'payments',
    action: 'reschedule',
    usage: 'payments reschedule --payment REF --due-date YYYY-MM-DD',
    options: { payment: { type: 'string' }, 'due-date': { type: 'string' } },
    async run(input, context) {
      const paymentId = reference(input, 'payment');
      const dueDate = day(input, 'due-date');
      const temporal = await context.temporal();
      const rescheduled = await changeThroughWorkflow(context, paymentId, () =>
        reschedulePaymentThroughProcess(temporal, paymentId, dueDate),
      );
      return {
        payment: paymentId,
        previous_due_date: rescheduled.previousDueDate,
        new_due_date: rescheduled.newDueDate,
      };
    },
  },
  {
    group: 'payments',
    action: 'cancel',
    usage: 'payments cancel --payment REF --reason TEXT',
    options: { payment: { type: 'string' }, reason: { type: 'string' } },
    async run(input, context) {
      const paymentId = reference(input, 'payment');
      const reason = required(input, 'reason');
      if (reason.length > 500) throw usage('--reason must be at most 500 characters');
      const temporal = await context.temporal();
      const canceled = await changeThroughWorkflow(context, paymentId, () =>
        cancelPaymentThroughProcess(temporal, paymentId, reason),
      );
      return { payment: paymentId, status: canceled.status, failure_reason: canceled.failureReason };
    },
  },
  {
    group: 'payments',
    action: 'batch',
    usage: 'payments batch create --payments REF,REF... [--name NAME]',
    options: { payments: { type: 'string' }, name: { type: 'string' } },
    positionals: true,
    async run(input, context) {
      if (input.positionals[0] !== 'create') throw usage('payments batch create --payments REF,REF... [--name NAME]');
      const paymentIds = required(input, 'payments')
        .split(',')
        .map((id) => id.trim())
        .filter(Boolean);
      for (const id of paymentIds) if (!z.uuid().safeParse(id).success) throw usage(`--payments: ${id} is not a UUID`);
      const created = await createPaymentBatch(systemEm(await context.orm()), {
        paymentIds,
        name: optional(input, 'name') ?? null,
      });
      const { batch, payments } = created;
      await startPaymentBatch(await context.temporal(), {
        companyId: batch.company.id,
        batchId: batch.id,
        paymentIds: payments.map((payment) => payment.id),
      });
      return {
        reference: batch.id,
        name: batch.name,
        currency: batch.currency,
        status: batch.status,
        payments: payments.map((payment) => payment.id),
      };
    },
  },
];
