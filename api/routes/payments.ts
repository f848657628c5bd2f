import { createHash } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { countryDate } from '../../fiscal/country-dates.ts';
import type { z } from 'zod';
import type { Country } from '../../db/companies/company.entity.ts';
import { UUID_PATTERN, uuidv5, uuidv7 } from '../../db/ids.ts';
import type { EntityManager } from '../../db/orm.ts';
import { PAYMENT_REFUSALS, resolveNewPayment } from '../../db/payments/new-payment.ts';
import { findPaymentPage } from '../../db/payments/payment.repository.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { Refusal } from '../../platform/refusal.ts';
import { createPaymentThroughProcess } from '../../temporal/payments.ts';
import { throughWorkflow } from '../../temporal/refusals.ts';
import type { NewPaymentCommand } from '../../services/payments/payments.ts';
import { refusals } from '../refusals.ts';
import { renderPaymentDetail, renderPaymentListItems } from '../../read-models/payment-json.ts';
import { defineRoute } from '../route.ts';
import { listOf, page } from '../schemas/common.ts';
import { amountToCents, scaleDecimal } from '../schemas/decimal.ts';
import { CreatePaymentRequest, PaymentListQuery, PaymentParams } from '../schemas/payments.ts';
import { PaymentDetail, PaymentListItem } from '../../read-models/payment-schema.ts';

/** What each refusal of a new payment means here. */
const REFUSALS = refusals(PAYMENT_REFUSALS, {
  descriptions: {
    beneficiary_not_found: 'no beneficiary of the company has beneficiary_reference',
    payable_not_found: 'no payable of the company has payable_reference',
    beneficiary_deleted: 'the beneficiary has been deleted',
    beneficiary_mismatch: "beneficiary_reference is not the payable's beneficiary",
    currency_mismatch: "amount_currency is not the payable's currency",
    payable_not_payable: 'the payable is already paid or canceled',
    amount_exceeds_balance:
      'the amount is more than the payable has left once processed and under-way payments are counted',
    invalid_payable_type: 'an advance to an employee (payments to employees are payroll)',
    document_canceled: "the payable's document was cancelled before the tax authority (SAT): it is not paid",
  },
});

const today = (country: Country) => countryDate(new Date(), country);

/** amount × rate in cents, rounded half up, exactly: the rate has at most 8 decimals. */
const exchangeCents = (amountCents: bigint, rate: string) =>
  (amountCents * scaleDecimal(rate, 8) + 50_000_000n) / 100_000_000n;

function commandOf(body: z.output<typeof CreatePaymentRequest>, country: Country): NewPaymentCommand {
  const amountCents = amountToCents(body.amount);
  const payload = body.payable_payload;
  return {
    beneficiaryId: body.beneficiary_reference?.toLowerCase() ?? null,
    payableId: body.payable_reference?.toLowerCase() ?? null,
    amountCents: amountCents.toString(),
    currency: body.amount_currency,
    exchangeRate: body.exchange_rate ?? null,
    exchangeCurrency: body.exchange_currency ?? null,
    exchangeAmountCents: body.exchange_rate ? exchangeCents(amountCents, body.exchange_rate).toString() : null,
    filePath: body.file_path ?? null,
    payDate: body.pay_date ?? null,
    payable: payload
      ? {
          issueDate: payload.issue_date ?? today(country),
          expirationDate: payload.expiration_date,
          concept: payload.concept ?? null,
          type: payload.type ?? null,
        }
      : null,
  };
}

/** Checks a new payment before starting its process, with the same rules its activity applies under lock. */
async function precheck(em: EntityManager, command: NewPaymentCommand): Promise<void> {
  await resolveNewPayment(em, {
    beneficiaryId: command.beneficiaryId,
    payableId: command.payableId,
    amountCents: BigInt(command.amountCents),
    currency: command.currency,
    payableType: command.payable?.type ?? null,
  });
}

/**
 * A new payment's reference. With an Idempotency-Key it is named by the company, the key and the request, so a retry
 * whose answer was lost (a 5xx releases the key) reaches the same `payment/<reference>` process instead of paying
 * twice; without one it is time-ordered like every id.
 */
export function newPaymentId(companyId: string, idempotencyKey: string, rawBody: string): string {
  if (!idempotencyKey) return uuidv7();
  const request = createHash('sha256').update(rawBody).digest('hex');
  return uuidv5(`payment\n${companyId}\n${idempotencyKey}\n${request}`);
}

async function paymentDetailOr404(em: EntityManager, companyId: string, reference: string) {
  if (!UUID_PATTERN.test(reference)) throw new Refusal('invalid_input', 'The payment reference must be a UUID');
  const detail = await renderPaymentDetail(em, companyId, reference.toLowerCase());
  if (!detail) throw new Refusal('payment_not_found', 'Payment not found');
  return detail;
}

/**
 * Archives or unarchives a payment: a flag for the integrator's own lists (GET /payments `state`), which changes nothing
 * else. The update applies only when the flag changes, so a repeat answers the payment unchanged.
 */
function archivingRoute(archived: boolean) {
  return defineRoute({
    method: 'post',
    path: `/payments/:reference/${archived ? 'archive' : 'unarchive'}`,
    operationId: archived ? 'archivePayment' : 'unarchivePayment',
    summary: archived ? 'Archive a payment' : 'Unarchive a payment',
    description: archived
      ? 'Sets `is_archived`: the payment leaves the default GET /payments list (`state=active`) and is listed with ' +
        '`state=archived`; it is still read by its reference. Archiving hides, it does not cancel: a pending payment still ' +
        'goes to the gateway on its day, and its outcome still reaches its payable and document (operators cancel payments). ' +
        'Payments keep no activity log, so nothing is logged. Idempotent: an archived payment answers unchanged. ' +
        'Answers the payment detail.'
      : 'Clears `is_archived`: the payment is back in the default GET /payments list (`state=active`). Idempotent: a payment ' +
        'not archived answers unchanged. Answers the payment detail.',
    tags: ['Payments'],
    auth: 'api-key',
    scope: 'payments:write',
    params: PaymentParams,
    response: PaymentDetail,
    errors: refusals(['invalid_input', 'payment_not_found']),
    handler: async ({ em, params, caller }) => {
      if (UUID_PATTERN.test(params.reference))
        await em.nativeUpdate(
          Payment,
          { id: params.reference.toLowerCase(), company: caller.company.id, isArchived: !archived },
          { isArchived: archived, updatedAt: new Date() },
        );
      return paymentDetailOr404(em, caller.company.id, params.reference);
    },
  });
}

/** Payments: the list and detail of what the company pays, and manual payments or payments of a payable. */
export const paymentRoutes = [
  defineRoute({
    method: 'get',
    path: '/payments',
    operationId: 'listPayments',
    summary: 'List payments',
    description:
      'Paginated, filtered and sorted. Active payments without payroll by default. A page costs a bounded number of queries.',
    tags: ['Payments'],
    auth: 'api-key',
    scope: 'payments:read',
    query: PaymentListQuery,
    response: listOf(PaymentListItem, 'PaymentList'),
    handler: async ({ em, query, caller }) => {
      const { ids, total } = await findPaymentPage(
        em,
        {
          beneficiaryIds: query.beneficiary_reference,
          documentIds: query.document_reference,
          batchIds: query.batch_reference,
          payableId: query.payable_reference,
          state: query.state,
          statuses: query.status,
          expirationDate: { from: query.expiration_date_from, to: query.expiration_date_to },
          tags: query.tags,
          paymentMethods: query.payment_method,
          onlyExpenses: query.only_expenses,
          includePayroll: query.include_payroll ?? false,
          search: query.search,
        },
        { field: query.sort_by, order: query.sort_order },
        { number: query.page, size: query.page_size },
      );
      return page(await renderPaymentListItems(em, caller.company.id, ids), total, query.page, query.page_size);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/payments/:reference',
    operationId: 'getPayment',
    summary: 'Get a payment with its detail-only fields',
    description: [
      "The payment as the list shows it, plus the beneficiary's type and contacts with their references, the payable's cost center,",
      'where it stands with the gateway (`payment_gateway`: scheduled, waiting for a validated account with the reason, or the transfer),',
      "an advance's balance, and its ERP references.",
    ].join(' '),
    tags: ['Payments'],
    auth: 'api-key',
    scope: 'payments:read',
    params: PaymentParams,
    response: PaymentDetail,
    errors: refusals(['invalid_input', 'payment_not_found']),
    handler: async ({ em, params, caller }) => paymentDetailOr404(em, caller.company.id, params.reference),
  }),
  defineRoute({
    method: 'post',
    path: '/payments',
    operationId: 'createPayment',
    summary: 'Create a payment: a manual one, or one of an existing payable',
    description: [
      'A manual payment (beneficiary_reference and payable_payload) creates its own payable',
      '(`supplier`, `advance`, or `payroll` for an employee) with origin `manual`.',
      "A payment of an existing payable (payable_reference, e.g. an installment of an approved document) pays that payable and carries its document's tags.",
      'Either way the payment starts `pending` and waits for its pay date',
      "(`pay_date`, else the payable's expiration_date; `payment_gateway.status` `scheduled`)",
      'and for a validated bank account of its beneficiary (`waiting_for_validated_account`, with the reason);',
      'no money moves before both.',
      'It then goes to the payment gateway and moves to `in_process`, then `processed` (with paid_at) or `failed`.',
      'Operators may reschedule or cancel it while it is pending, or release it in a batch.',
    ].join(' '),
    tags: ['Payments'],
    auth: 'api-key',
    scope: 'payments:write',
    body: CreatePaymentRequest,
    status: 201,
    response: PaymentListItem,
    errors: REFUSALS,
    handler: async ({ em, body, caller, deps, ctx }) => {
      const command = commandOf(body, caller.company.country);
      const key = ctx.get('idempotency-key');
      const paymentId = newPaymentId(caller.company.id, key, ctx.request.rawBody ?? '');
      const written = async () => (await renderPaymentListItems(em, caller.company.id, [paymentId]))[0];
      // A retry whose answer was lost: the payment is written, and the precheck would count it against its payable.
      const earlier = key ? await written() : undefined;
      if (earlier) return earlier;
      await precheck(em, command);
      const input = { companyId: caller.company.id, paymentId, pollIntervalMs: deps.config.paymentPollIntervalMs };
      await throughWorkflow(() => createPaymentThroughProcess(deps.temporal, input, command)).catch(
        async (error: unknown) => {
          if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
          // The key's process has ended: it wrote the payment meanwhile, or it was refused and that answer was lost.
          if (await written()) return;
          await throughWorkflow(() => createPaymentThroughProcess(deps.temporal, input, command, 'start-again'));
        },
      );
      const created = await written();
      if (!created) throw new Error(`Payment ${paymentId} is not in the read state after its creating update`);
      return created;
    },
  }),
  archivingRoute(true),
  archivingRoute(false),
];
