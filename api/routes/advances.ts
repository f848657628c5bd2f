import { updateAdvanceBalance } from '../../services/payments/advances.ts';
import { refusals } from '../refusals.ts';
import { defineRoute } from '../route.ts';
import { AdvanceBalance, AdvanceBalanceRequest, AdvanceParams } from '../schemas/advances.ts';

/** The ERP's side of advances: after crossing one against a document, it says what is left of it. */
export const advanceRoutes = [
  defineRoute({
    method: 'put',
    path: '/advances/:reference',
    operationId: 'updateAdvanceBalance',
    summary: "Set an advance's outstanding balance",
    description: [
      'After registering a voucher whose `document.accounted` carried `advance_crossings`,',
      'the ERP reports what is left of each crossed advance (`reference` in the crossing).',
      'Idempotent: the same amount again changes nothing and answers the same balance.',
      "The balance shows in the payment's `advance_balance` and in the `advance_crossings` proposed for the beneficiary's later documents.",
      'Nothing is written on a refusal.',
    ].join(' '),
    tags: ['ERP catalogs'],
    auth: 'erp-key',
    params: AdvanceParams,
    body: AdvanceBalanceRequest,
    response: AdvanceBalance,
    errors: refusals(['payment_not_found', 'not_an_advance', 'advance_not_paid', 'outstanding_out_of_range']),
    handler: async ({ em, params, body }) => {
      const balance = await updateAdvanceBalance(em, {
        paymentId: params.reference,
        outstandingCents: BigInt(body.outstanding_amount_cents),
      });
      return {
        reference: balance.paymentId,
        currency: balance.currency,
        original_amount_cents: Number(balance.originalCents),
        outstanding_amount_cents: Number(balance.outstandingCents),
        updated_at: balance.updatedAt?.toISOString() ?? null,
      };
    },
  }),
];
