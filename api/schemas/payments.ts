import { z } from 'zod';
import { BENEFICIARY_TYPES } from '../../db/beneficiaries/beneficiary.entity.ts';
import { CONTACT_TYPES } from '../../db/beneficiaries/contact.entity.ts';
import { DOCUMENT_TYPES } from '../../db/documents/document.entity.ts';
import { PAYABLE_STATUSES, PAYABLE_TYPES } from '../../db/payments/payable.entity.ts';
import { PAYMENT_SORT_FIELDS } from '../../db/payments/payment.repository.ts';
import { PAYMENT_STATUSES } from '../../db/payments/payment.entity.ts';
import { Currency, PageQuery, QueryBoolean, Reference, UUID_PATTERN, commaSeparated, trimmedString } from './common.ts';
import { decimalInput } from './decimal.ts';

const DateTime = z.iso.datetime({ offset: true });
const DateOnly = z.iso.date();
const Details = z.record(z.string(), z.unknown());

const BeneficiaryBase = {
  reference: Reference,
  name: z.string(),
  identifier_type: z.string(),
  identifier_number: z.string(),
  is_deleted: z.boolean(),
  deleted_at: DateTime.nullable(),
};

const PaymentDocument = z
  .strictObject({
    reference: Reference,
    type: z.enum(DOCUMENT_TYPES),
    document_number: z.string(),
    fiscal_reference: z.string().nullable(),
    origin: z
      .string()
      .describe('`fiscal_entity` for documents received from the tax authority, else how it was created'),
    amount: z.number(),
    amount_currency: Currency,
    is_canceled: z.boolean(),
  })
  .meta({ id: 'PaymentDocument', description: 'The source document, through the payable' });

const PayableBase = {
  reference: Reference,
  type: z.enum(PAYABLE_TYPES),
  status: z
    .enum(PAYABLE_STATUSES)
    .describe(
      '`pending`, `partial` or `paid` as processed payments cover `amount` (`balance` = amount − processed payments); `canceled` stays',
    ),
  amount: z.number(),
  amount_currency: Currency,
  file_path: z.string().nullable(),
  balance: z.number().describe('What remains to pay: the amount less the processed payments'),
  issue_date: DateOnly.nullable(),
  expiration_date: DateOnly.nullable().describe('The due date'),
  concept: z.string().nullable(),
  origin: z.string().describe('`document` for a document installment, `manual` for a payable created with its payment'),
  projects: z.array(Details).describe('Kept as received; free-form objects'),
};

const PaymentBase = {
  reference: Reference,
  document: PaymentDocument.nullable().describe('Null for manual payments and advances without a document'),
  amount: z.number(),
  exchange_amount: z
    .number()
    .describe('The amount in exchange_currency (amount × exchange_rate); the amount itself when there is no exchange'),
  amount_currency: Currency,
  exchange_currency: Currency.nullable(),
  exchange_rate: z.number().nullable(),
  status: z
    .enum(PAYMENT_STATUSES)
    .describe('pending (created), in_process (with the gateway), processed (credited), failed (rejected)'),
  file_path: z.string().nullable(),
  receipt_file_path: z.string().nullable(),
  is_archived: z.boolean(),
  batch: z
    .strictObject({ reference: Reference, name: z.string(), status: z.string() })
    .nullable()
    .describe('The payment batch: reference, name and status only'),
  tags: z.array(z.string()).describe("Tag names, propagated from the payable's document"),
  source_of_fund: Details.nullable().describe('Kept as stored; a free-form object'),
  accounting_receipt: Details.nullable().describe('Kept as stored; a free-form object'),
  paid_at: DateTime.nullable(),
  payment_method: z
    .string()
    .nullable()
    .describe('e.g. bank_transfer (through the gateway), cash, card, banking_correspondent'),
  created_at: DateTime,
  updated_at: DateTime,
};

export const PaymentListItem = z
  .strictObject({
    ...PaymentBase,
    beneficiary: z.strictObject({
      ...BeneficiaryBase,
      contact_information: z.array(z.strictObject({ type: z.enum(CONTACT_TYPES), value: z.string() })),
    }),
    email: z.string().nullable().describe("The beneficiary's e-mail"),
    payable: z.strictObject(PayableBase),
  })
  .meta({ id: 'PaymentListItem' });

export const PaymentDetail = z
  .strictObject({
    ...PaymentBase,
    beneficiary: z.strictObject({
      ...BeneficiaryBase,
      type: z.enum(BENEFICIARY_TYPES).describe('`employee` for payroll payments'),
      contact_information: z.array(
        z.strictObject({ reference: Reference, type: z.enum(CONTACT_TYPES), value: z.string() }),
      ),
    }),
    payable: z.strictObject({
      ...PayableBase,
      cost_center: Details.nullable().describe('Kept as received; a free-form object'),
    }),
    payment_gateway: Details.nullable().describe(
      'The transfer at the gateway: provider, transfer_id, status, failure_reason, submitted_at, settled_at',
    ),
    has_erp_payment: z.boolean(),
    erp_payment_reference: z.string().nullable(),
    is_fiscal_entity: z.boolean().describe('The payable comes from a document received from the tax authority'),
    has_erp_payable: z.boolean(),
    erp_payable_reference: z.string().nullable(),
    erp_payable: Details.nullable(),
    erp_payment: Details.nullable(),
  })
  .meta({ id: 'Payment' });

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
    .describe('`active` (default) or `archived`; with `archived` the status filter is ignored'),
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
