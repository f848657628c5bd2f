import { z } from 'zod';
import { Currency, Reference } from '../platform/schema-atoms.ts';
import { BeneficiaryType, ContactType, DocumentType, PayableStatus, PayableType, PaymentStatus } from './enums.ts';

// What a payment looks like in answers: the read model (payment-json.ts) renders exactly this.

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
    type: DocumentType,
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

/** Fields this version never fills, each with why (shared with the document's payables). */
export const PROJECTS =
  'Always empty in this version: the service holds no catalog of projects, and nothing that creates a payable ' +
  '(an approval, POST /payments) names one';
export const COST_CENTER =
  "Null until the ERP has registered the document's posted voucher (`document.accounted` answered 200); then the cost " +
  "center of the voucher's payment line for this installment (`quota_number` = the installment), else the voucher's own " +
  "`cost_center_external_id`, as `{ external_id, code, name }` (code and name from the ERP's cost-center catalog, null " +
  'when it does not hold it). Null for manual payables and when the voucher names none';

const PayableBase = {
  reference: Reference,
  type: PayableType,
  status: PayableStatus,
  amount: z.number(),
  amount_currency: Currency,
  file_path: z.string().nullable(),
  balance: z.number().describe('What remains to pay: the amount less the processed payments'),
  issue_date: DateOnly.nullable(),
  expiration_date: DateOnly.nullable().describe('The due date'),
  concept: z.string().nullable(),
  origin: z.string().describe('`document` for a document installment, `manual` for a payable created with its payment'),
  projects: z.array(Details).describe(PROJECTS),
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
  status: PaymentStatus,
  pay_date: DateOnly.describe(
    "The day it goes to the gateway, in the company's country: the payable's expiration_date unless the request or an operator gave another",
  ),
  file_path: z.string().nullable(),
  receipt_file_path: z
    .string()
    .nullable()
    .describe(
      'Always null in this version: the payment gateway reports no receipt of a transfer (only its id, status, failure reason, settlement time and method), so there is no file to link',
    ),
  is_archived: z
    .boolean()
    .describe(
      'Set by POST /payments/{reference}/archive, cleared by …/unarchive: archived payments are listed with `state=archived` only',
    ),
  batch: z
    .strictObject({ reference: Reference, name: z.string(), status: z.string() })
    .nullable()
    .describe('The payment batch: reference, name and status only'),
  tags: z.array(z.string()).describe("Tag names, propagated from the payable's document"),
  source_of_fund: Details.nullable().describe(
    "Always null in this version: the gateway pays from the account the company set up with it, and the service holds no catalog of the company's own accounts to name one",
  ),
  accounting_receipt: Details.nullable().describe(
    'Always null in this version: the service accounts documents (`document.accounted`), not payments; no payment voucher is made or received',
  ),
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
      contact_information: z.array(z.strictObject({ type: ContactType, value: z.string() })),
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
      type: BeneficiaryType.describe('`employee` for payroll payments'),
      contact_information: z.array(z.strictObject({ reference: Reference, type: ContactType, value: z.string() })),
    }),
    payable: z.strictObject({
      ...PayableBase,
      cost_center: Details.nullable().describe(COST_CENTER),
    }),
    payment_gateway: Details.nullable().describe(
      [
        'Where the payment stands with the gateway.',
        'While pending: status `scheduled` (with pay_date) or `waiting_for_validated_account`',
        '(with the reason, naming each account of the beneficiary and its validation);',
        'once handed over: provider, transfer_id, status (`processing`, `settled`, `failed`), failure_reason, submitted_at, settled_at;',
        '`canceled` (with canceled_at) when an operator canceled it',
      ].join(' '),
    ),
    advance_balance: z
      .strictObject({
        original_amount: z.number().describe('The advance paid'),
        outstanding_amount: z
          .number()
          .describe('What is left to cross against documents, as the ERP last reported it; all of it until then'),
        updated_at: DateTime.nullable().describe('When the ERP last reported it; null: never'),
      })
      .nullable()
      .describe('For a processed payment of an `advance` payable; null otherwise'),
    has_erp_payment: z.boolean().describe('Always false in this version: see erp_payment_reference'),
    erp_payment_reference: z
      .string()
      .nullable()
      .describe(
        "Always null in this version: no ERP endpoint reports the ERP's record of a payment (PUT /api/v1/erp/advances/{reference} takes an advance's balance only)",
      ),
    is_fiscal_entity: z.boolean().describe('The payable comes from a document received from the tax authority'),
    has_erp_payable: z.boolean().describe('Always false in this version: see erp_payable_reference'),
    erp_payable_reference: z
      .string()
      .nullable()
      .describe(
        "Always null in this version: the ERP answers `document.accounted` with its id of the whole voucher, not of each payable; that id is the document's `erp_document.erp_invoice_id`",
      ),
    erp_payable: Details.nullable().describe('Always null in this version: see erp_payable_reference'),
    erp_payment: Details.nullable().describe('Always null in this version: see erp_payment_reference'),
  })
  .meta({ id: 'Payment' });
