import { z } from 'zod';
import { Currency } from '../platform/schema-atoms.ts';
import { DocumentExchangeRate } from './exchange-rate-schema.ts';

// `erp_document`: the document's registration in the integrator's ERP, as `document.accounted` was answered.
// `data` is in the ERP's own shape: ids are the ERP's external_ids, amounts are decimal numbers in the document's
// currency except the `*_cents` fields (integer cents; the lines' debit_cents and credit_cents are strings), and the
// `local_*` ones, in the company's local currency.

const DateOnly = z.iso.date();
const Amount = z.number();
const Cents = z.number().int();
const CentsText = z.string().regex(/^-?\d+$/);

const ProductRecord = z.strictObject({
  id: z.string(),
  code: z.string().nullable(),
  name: z.string(),
  unit_code: z.string().nullable(),
});
const BookAccountRecord = z.strictObject({
  id: z.string(),
  code: z.string(),
  name: z.string(),
  nature: z.string().nullable(),
});
const CostCenterRecord = z.strictObject({ id: z.string(), code: z.string().nullable(), name: z.string() });
const TaxRecord = z.strictObject({
  id: z.string(),
  code: z.string().nullable(),
  name: z.string(),
  type: z.string().nullable(),
  rate: z.number().nullable().describe('Fraction: 0.16 for 16%'),
  is_withholding: z.boolean(),
});
const VendorRecord = z.strictObject({
  id: z.string(),
  name: z.string(),
  identifier_type: z.string().nullable(),
  identifier_number: z.string().nullable(),
  email: z.string().nullable(),
});

const Item = z.strictObject({
  description: z.string().nullable(),
  product_id: z.string().nullable(),
  quantity: z.number().nullable(),
  unit_price: Amount.nullable(),
  discount: Amount,
  amount_total: Amount.describe("The line's amount on the voucher, before its taxes"),
  taxes: z.array(z.strictObject({ id: z.string(), base: Amount })),
  cost_centers: z.array(z.strictObject({ id: z.string(), value: z.number().describe('Percentage of the line') })),
});

const LOCAL_CENTS = (field: string) =>
  `\`${field}\` in the company's local currency (COP, MXN), in cents: ` +
  `converted at \`exchange_rate\`, rounded half up, the rounding difference going to the largest line of the side that falls short, ` +
  `so that local debits and credits balance when the voucher does. ` +
  `Equal to \`${field}\` for a document in the local currency; null when \`${field}\` is, or when a document in another currency states no rate`;

const JournalEntryLine = z.strictObject({
  source: z.enum(['document', 'agent', 'front', 'purchase_order', 'goods_receipt', 'payable_line']),
  description: z.string().nullable(),
  debit_cents: CentsText.nullable(),
  credit_cents: CentsText.nullable(),
  local_debit_cents: CentsText.nullable().describe(LOCAL_CENTS('debit_cents')),
  local_credit_cents: CentsText.nullable().describe(LOCAL_CENTS('credit_cents')),
  quantity: z.number().nullable(),
  book_account_id: z.string(),
  book_account: BookAccountRecord.nullable().describe('Null when the ERP catalog has no book account with this id'),
  product_id: z.string().nullable(),
  product: ProductRecord.nullable(),
  cost_centers: z.array(
    z.strictObject({ id: z.string(), percentage: z.number(), cost_center: CostCenterRecord.nullable() }),
  ),
  taxes: z.array(z.strictObject({ id: z.string(), base_cents: Cents, amount_cents: Cents, tax: TaxRecord.nullable() })),
});

export const ErpDocumentData = z
  .strictObject({
    document_id: z.string().describe('The document reference (the deduplication key of document.accounted)'),
    document_number: z.string(),
    document_reference: z
      .string()
      .nullable()
      .describe("The ERP's consecutive (invoice_reference); null until assigned"),
    document_type_id: z.string().nullable(),
    external_reference: z.string().describe("The ERP's id of the registered voucher (erp_invoice_id)"),
    origin: z
      .enum(['direct', 'purchase_order', 'goods_receipt'])
      .describe('Registered directly, or against the purchase order or goods receipt its lines were crossed with'),
    status: z.enum(['posted', 'cancelled']).describe('The status of the voucher registered'),
    vendor_id: z.string().nullable(),
    issue_date: DateOnly,
    due_date: DateOnly.nullable().describe('Due date of the last installment'),
    expiration_date: DateOnly.nullable(),
    accounting_date: DateOnly,
    observation: z.string().nullable(),
    currency: Currency.describe("The document's currency (amount_currency): every amount not named `local_*` is in it"),
    exchange_rate: DocumentExchangeRate.nullable().describe(
      "The document's rate to the local currency, which the `local_*` amounts were converted at; null for a document in the local currency, or in another one that states no rate",
    ),
    items: z
      .array(Item)
      .describe(
        'Lines of goods or services (with a product or a quantity); tax and withholding lines are only in erp_journal_entry_lines',
      ),
    summary: z.strictObject({
      subtotal: Amount,
      gross_total: Amount,
      net_total: Amount,
      discount: Amount,
      iva_8: Amount,
      iva_16: Amount,
    }),
    payment_lines: z.array(
      z.strictObject({
        amount: Amount,
        local_amount: Amount.nullable().describe(
          '`amount` in the local currency: converted like the lines (a payment line is a credit), the same as `amount` for a document in the local currency, null without a rate',
        ),
        due_date: DateOnly,
        book_account_id: z.string(),
      }),
    ),
    erp_journal: z
      .strictObject({ id: z.string() })
      .nullable()
      .describe("The journal, named by the voucher's document type"),
    erp_vendor: VendorRecord.nullable(),
    erp_journal_entry_lines: z.array(JournalEntryLine),
  })
  .meta({
    id: 'ErpDocumentData',
    description: 'The document as the ERP registered it, built when the ERP answered document.accounted.',
  });

export const ErpDocumentBody = z.strictObject({
  registered: z.boolean(),
  erp_invoice_id: z.string().nullable().describe("The ERP's id of the voucher, as it answered"),
  invoice_reference: z.string().nullable().describe("The ERP's consecutive; null while it has not assigned one"),
  data: ErpDocumentData.nullable(),
});
