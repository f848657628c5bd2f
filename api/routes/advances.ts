import { AdvanceRefused, updateAdvanceBalance, type AdvanceRefusal } from '../../services/payments/advances.ts';
import { ApiError } from '../errors.ts';
import { defineRoute, type DocumentedError } from '../route.ts';
import { AdvanceBalance, AdvanceBalanceRequest, AdvanceParams } from '../schemas/advances.ts';

const REFUSALS: Record<AdvanceRefusal, DocumentedError> = {
  payment_not_found: {
    status: 404,
    code: 'payment_not_found',
    description: 'no payment of the company has this reference',
  },
  not_an_advance: {
    status: 422,
    code: 'not_an_advance',
    description: 'the payment pays a supplier or payroll payable',
  },
  advance_not_paid: {
    status: 409,
    code: 'advance_not_paid',
    description: 'the advance is not processed: nothing was paid that could be crossed',
  },
  outstanding_out_of_range: {
    status: 422,
    code: 'outstanding_out_of_range',
    description: "outstanding_amount_cents is above the advance's original amount",
  },
};

/** The ERP's side of advances: after crossing one against a document, it says what is left of it. */
export const advanceRoutes = [
  defineRoute({
    method: 'put',
    path: '/advances/:reference',
    operationId: 'updateAdvanceBalance',
    summary: "Set an advance's outstanding balance",
    description:
      "After registering a voucher whose `document.accounted` carried `advance_crossings`, the ERP reports what is left of each crossed advance (`reference` in the crossing). Idempotent: the same amount again changes nothing and answers the same balance. The balance shows in the payment's `advance_balance` and in the `advance_crossings` proposed for the beneficiary's later documents. Nothing is written on a refusal.",
    tags: ['ERP catalogs'],
    auth: 'erp-key',
    params: AdvanceParams,
    body: AdvanceBalanceRequest,
    response: AdvanceBalance,
    errors: Object.values(REFUSALS),
    handler: async ({ em, params, body }) => {
      try {
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
      } catch (error) {
        if (!(error instanceof AdvanceRefused)) throw error;
        throw new ApiError(REFUSALS[error.code].status, error.code, error.message);
      }
    },
  }),
];
