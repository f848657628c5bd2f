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
  status: PaymentStatus,
  pay_date: DateOnly.describe(
    "The day it goes to the gateway, in the company's country: the payable's expiration_date unless the request or an operator gave another",
  ),
  file_path: z.string().nullable(),
  receipt_file_path: z.string().nullable(),
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
      cost_center: Details.nullable().describe('Kept as received; a free-form object'),
    }),
    payment_gateway: Details.nullable().describe(
      'Where the payment stands with the gateway. While pending: status `scheduled` (with pay_date) or `waiting_for_validated_account` (with the reason, naming each account of the beneficiary and its validation); once handed over: provider, transfer_id, status (`processing`, `settled`, `failed`), failure_reason, submitted_at, settled_at; `canceled` (with canceled_at) when an operator canceled it',
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
    has_erp_payment: z.boolean(),
    erp_payment_reference: z.string().nullable(),
    is_fiscal_entity: z.boolean().describe('The payable comes from a document received from the tax authority'),
    has_erp_payable: z.boolean(),
    erp_payable_reference: z.string().nullable(),
    erp_payable: Details.nullable(),
    erp_payment: Details.nullable(),
  })
  .meta({ id: 'Payment' });
