import { z } from 'zod';
import { PAYMENT_SORT_FIELDS } from '../../db/payments/payment.repository.ts';
import { PAYMENT_STATUSES } from '../../db/payments/payment.entity.ts';
import { PageQuery, QueryBoolean, commaSeparated } from './common.ts';
import { Currency, Reference, UUID_PATTERN, trimmedString } from '../../platform/schema-atoms.ts';
import { decimalInput } from './decimal.ts';

const DateOnly = z.iso.date();

const Uuids = (what: string) =>
  commaSeparated(Reference).optional().describe(`${what} references (UUIDs), comma-separated: any of them`);

export const PaymentListQuery = z.object({
  ...PageQuery,
  search: trimmedString()
    .min(1)
    .max(50, 'Must be at most 50 characters')
    .optional()
    .describe(
      "Text in the beneficiary's name or identifier, the payable's concept or the document number (at most 50 characters)",
    ),
  beneficiary_reference: Uuids('Beneficiary'),
  document_reference: Uuids('Document'),
  batch_reference: Uuids('Batch'),
  payable_reference: Reference.optional(),
  state: z
    .enum(['active', 'archived'])
    .default('active')
    .describe(
      '`active` (default): payments not archived; `archived`: only those archived with POST /payments/{reference}/archive, whatever the status filter',
    ),
  status: commaSeparated(z.enum(PAYMENT_STATUSES)).optional().describe('Comma-separated statuses'),
  expiration_date_from: DateOnly.optional().describe("YYYY-MM-DD, inclusive, on the payable's due date"),
  expiration_date_to: DateOnly.optional().describe("YYYY-MM-DD, inclusive, on the payable's due date"),
  tags: commaSeparated(z.string().min(1).max(100))
    .optional()
    .describe('Tag ids or names, comma-separated: a payment matches when it has any of them'),
  payment_method: commaSeparated(z.string().min(1).max(50)).optional().describe('Comma-separated payment methods'),
  only_expenses: QueryBoolean.optional().describe('true: only payments of expense documents'),
  include_payroll: QueryBoolean.optional().describe(
    'Default false; true also lists payroll payments (payable.type `payroll`)',
  ),
  sort_by: z
    .enum(PAYMENT_SORT_FIELDS)
    .default('created_at')
    .describe('`beneficiary` sorts by its name; unpaid payments and payables without a due date go last'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
});

/** A malformed reference is the spec's 400 `invalid_input` (flat shape), checked by the handler, not the validation envelope. */
export const PaymentParams = z.object({
  reference: z.string().meta({ format: 'uuid', pattern: UUID_PATTERN }).describe('Payment reference (UUID)'),
});

const PayablePayload = z
  .object({
    expiration_date: DateOnly.describe('Due date, YYYY-MM-DD'),
    issue_date: DateOnly.optional().describe("YYYY-MM-DD; today in the company's time zone when absent"),
    concept: trimmedString().min(1).max(500).optional(),
    type: z
      .enum(['supplier', 'advance'])
      .optional()
      .describe('Default `supplier`; `advance` for a payment ahead of any document. Payments to employees are payroll'),
  })
  .describe('The payable created with a manual payment');

export const CreatePaymentRequest = z
  .object({
    beneficiary_reference: Reference.optional().describe(
      'Required for a manual payment; with payable_reference, optional and must be its beneficiary',
    ),
    payable_reference: Reference.optional().describe(
      "An existing payable to pay (a document's installment, see the document's `payables`); absent for a manual payment",
    ),
    amount: decimalInput({ min: '1', maxDecimals: 2 }).describe(
      'At least 1, at most 2 decimals; with payable_reference, at most what the payable has left',
    ),
    amount_currency: Currency.describe("With payable_reference, the payable's currency"),
    exchange_rate: decimalInput({ min: '0', exclusiveMin: true, maxDecimals: 8, max: '999999999999' })
      .optional()
      .describe('Units of exchange_currency per unit of amount_currency; together with exchange_currency'),
    exchange_currency: Currency.optional(),
    file_path: z
      .url({ protocol: /^https?$/, message: 'Must be an http(s) URL' })
      .max(2048, 'Must be at most 2048 characters')
      .optional()
      .describe('URL of the support file'),
    payable_payload: PayablePayload.optional().describe(
      'Required for a manual payment; not allowed with payable_reference',
    ),
    pay_date: DateOnly.optional().describe(
      "The day the payment goes to the gateway, YYYY-MM-DD in the company's country. Absent: the payable's expiration_date (today when it has none); today or earlier: at once",
    ),
  })
  .superRefine((body, context) => {
    const issue = (path: string | string[], message: string) =>
      context.addIssue({ code: 'custom', path: Array.isArray(path) ? path : [path], message });
    if (!body.beneficiary_reference && !body.payable_reference)
      issue('beneficiary_reference', 'Required (or payable_reference, to pay an existing payable)');
    if (body.payable_reference && body.payable_payload)
      issue('payable_payload', 'Not allowed with payable_reference: it describes a new payable');
    if (!body.payable_reference && !body.payable_payload)
      issue('payable_payload', 'Required for a manual payment (at least expiration_date)');
    if ((body.exchange_rate === undefined) !== (body.exchange_currency === undefined))
      issue(
        body.exchange_rate === undefined ? 'exchange_rate' : 'exchange_currency',
        'exchange_rate and exchange_currency go together',
      );
    const payable = body.payable_payload;
    if (payable?.issue_date && payable.issue_date > payable.expiration_date)
      issue(['payable_payload', 'issue_date'], 'Must not be after expiration_date');
  });
