import { z } from 'zod';
import { EXPENSE_ORIGINS, PREPAID_CONVENTIONS } from '../db/documents/document.entity.ts';
import { Currency, Reference } from '../platform/schema-atoms.ts';
import { ACCOUNTING_ENTRY_STATUSES, REGISTRATION_STATES } from '../db/accounting/accounting-entry.entity.ts';
import { ErpDocumentBody } from './erp-document-schema.ts';
import { COST_CENTER, PROJECTS } from './payment-schema.ts';
import { DocumentExchangeRate, StatedExchangeRate } from './exchange-rate-schema.ts';
import {
  ApprovalStatus,
  BeneficiaryType,
  ContactType,
  DocumentPaymentStatus,
  DocumentType,
  PayableStatus,
  PayableType,
  PaymentStatus,
  ReceptionEventStatus,
  ReceptionEventType,
} from './enums.ts';

// What a document looks like in answers and webhooks: the read model (document-json.ts) renders exactly this.

const DateTime = z.iso.datetime({ offset: true });
const DateOnly = z.iso.date();

export const ContactInformation = z.strictObject({ type: ContactType, value: z.string() });

export const BeneficiaryBody = z
  .strictObject({
    reference: Reference,
    name: z.string(),
    type: BeneficiaryType,
    email: z.string().nullable(),
    phone_number: z.string().nullable(),
    identifier_type: z.string().describe('NIT, CC, CE, RFC...'),
    identifier_number: z.string(),
    payment_terms: z
      .number()
      .int()
      .nullable()
      .describe(
        "Payment term in days. When the company's ERP catalogs hold one for the supplier, the ERP's: the term " +
          "(`payment_term_external_id`) of the active ERP vendor with the beneficiary's identifier number, its `days`, or " +
          "for a term in installments the days of the last one (the term that schedules the document's payables). " +
          "Else the beneficiary's own, null when it has none",
      ),
    fiscal_address: z.string().nullable(),
    contact_information: z.array(ContactInformation),
    bank_accounts: z.array(
      z.strictObject({
        reference: Reference,
        bank_reference: Reference,
        bank_name: z.string(),
        account_number: z.string(),
      }),
    ),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'Beneficiary' });

export const DocumentPayment = z
  .strictObject({
    reference: Reference,
    date: DateTime.nullable().describe('When the payment was made (paid_at), or created while not yet paid'),
    amount: z.number(),
    amount_currency: Currency,
    payment_method: z.string().nullable(),
    payable_reference: Reference.describe('Group by this before summing: a document can have several payables'),
    status: PaymentStatus,
  })
  .meta({ id: 'DocumentPayment' });

export const PayableBody = z
  .strictObject({
    reference: Reference,
    type: PayableType,
    status: PayableStatus,
    amount: z.number(),
    amount_currency: Currency,
    balance: z.number(),
    file_path: z.string().nullable(),
    issue_date: DateOnly.nullable(),
    expiration_date: DateOnly.nullable(),
    concept: z.string().nullable(),
    origin: z.string().describe('document, fiscal_entity or manual'),
    installment_number: z.number().int().min(1).describe("1-based installment of the document's payment term"),
    projects: z.array(z.record(z.string(), z.unknown())).describe(PROJECTS),
    cost_center: z.record(z.string(), z.unknown()).nullable().describe(COST_CENTER),
  })
  .meta({
    id: 'Payable',
    description: "The payment record's payable fields, plus installment_number, projects and cost_center",
  });

export const Adjustment = z.strictObject({
  type: z.string().describe('tax, withholding, discount or charge'),
  code: z.string().nullable(),
  rate: z.number().nullable().describe('Fraction: 0.19 for 19 %'),
  rate_percentage: z.number().nullable(),
  base_amount: z.number(),
  amount: z.number(),
  is_inclusive: z.boolean(),
  metadata: z.record(z.string(), z.unknown()),
});

export const LineItemBody = z
  .strictObject({
    reference: Reference,
    name: z.string(),
    description: z.string().nullable(),
    code: z.string().nullable(),
    quantity: z.number(),
    unit_code: z.string().nullable(),
    unit_price: z.number(),
    currency: Currency,
    subtotal: z.number(),
    total: z.number(),
    position: z.number().int(),
    metadata: z.record(z.string(), z.unknown()),
    adjustments: z.array(Adjustment),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'LineItem' });

export const NoteBody = z
  .strictObject({
    reference: Reference,
    comment: z.string().nullable(),
    file_path: z.string().nullable(),
    file_name: z.string().nullable(),
    created_by: z.strictObject({ name: z.string() }),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'DocumentNote' });

export const LogBody = z.strictObject({
  event: z.string().describe('document.created, document.approved, document.updated...'),
  created_at: DateTime,
  actor: z.strictObject({
    type: z.enum(['system', 'user', 'agent']),
    source: z.string().optional(),
    name: z.string().optional(),
    email: z.string().optional(),
  }),
  metadata: z.record(z.string(), z.unknown()),
});

export const ReceptionEventEntry = z.strictObject({
  event: z
    .string()
    .describe('acuse (030), reclamo (031), recibo (032), aceptacion_expresa (033), aceptacion_tacita (034)'),
  event_type: ReceptionEventType,
  issue_date: DateTime.nullable().describe('When the tax authority registered the event'),
  status: ReceptionEventStatus,
  reason: z.string().nullable(),
});

export const PaymentReceiptComplementBody = z.strictObject({
  fiscal_reference: z.string().describe('Fiscal UUID of the payment receipt (CFDI with Pagos 2.0)'),
  payment_date: DateTime,
  amount: z.number(),
  amount_currency: Currency,
  installment_number: z.number().int(),
  previous_balance: z.number(),
  paid_amount: z.number(),
  outstanding_balance: z.number(),
});

export const DocumentSupportBody = z
  .strictObject({
    issue_date: DateOnly.describe('`cbc:IssueDate` of the documento soporte'),
    document_number: z.string().describe('`cbc:ID`: its prefix and consecutive number'),
    cuds: z
      .string()
      .nullable()
      .describe(
        'The CUDS (`cbc:UUID schemeName="CUDS-SHA384"`), 96 hexadecimal characters; also the `fiscal_reference`',
      ),
    cuds_check: z
      .enum(['recomputed', 'format'])
      .nullable()
      .describe(
        [
          '`recomputed`: issued with the DIAN software this service holds the PIN of,',
          'and the CUDS equals SHA-384 of its composition (NumDS + FecDS + HorDS + ValDS + 01 + ValImp1 + ValTot + NumSNO + NITABS + PIN + TipoAmbiente);',
          '`format`: issued with other software, so only its shape (96 hex) could be checked, as for a CUFE',
        ].join(' '),
      ),
    seller: z
      .strictObject({
        name: z.string(),
        identifier_type: z.string().describe('CC, NIT, CE, PA...'),
        identifier_number: z.string().describe('Without check digit'),
        check_digit: z.string().nullable().describe('The NIT check digit (DV), when given'),
        email: z.string().nullable(),
        address: z.string().nullable(),
      })
      .nullable()
      .describe('The seller not obliged to invoice (NumSNO): the beneficiary of the expense'),
    parties_reversed: z
      .boolean()
      .describe(
        "True when the file put the company in AccountingSupplierParty and the seller in AccountingCustomerParty, the other way round from DIAN's annex; the seller is the beneficiary either way",
      ),
    resolution: z
      .strictObject({
        number: z.string().nullable().describe('`sts:InvoiceAuthorization`'),
        valid_from: z.string().nullable(),
        valid_to: z.string().nullable(),
        prefix: z.string().nullable(),
        range_from: z.string().nullable(),
        range_to: z.string().nullable(),
      })
      .nullable()
      .describe('The DIAN numbering resolution the document states (`sts:InvoiceControl`); null when it states none'),
    environment: z
      .enum(['production', 'test'])
      .nullable()
      .describe('`ProfileExecutionID` 1 (production) or 2 (test, habilitación)'),
  })
  .meta({
    id: 'DocumentSupport',
    description:
      "The documento soporte behind an expense: the company's own DIAN record of a purchase from someone not obliged to invoice (UBL Invoice, InvoiceTypeCode 05)",
  });

export const ReimbursedPersonBody = z
  .strictObject({
    name: z.string(),
    identifier_type: z.string().describe('CC, CE, NIT, PA, RFC, CURP...'),
    identifier_number: z.string(),
    email: z.string().nullable(),
  })
  .meta({ id: 'ReimbursedPerson', description: 'Who paid the cost out of pocket and is paid back' });

export const ExpenseBody = z
  .strictObject({
    origin: z
      .enum(EXPENSE_ORIGINS)
      .describe(
        '`support_document`: imported from a DIAN documento soporte (see `document_support`); `manual`: recorded by an operator or integrator with its receipt (POST /documents)',
      ),
    category: z.string().nullable().describe('Free text: travel, meals, transport...'),
    cost_center: z.string().nullable().describe('The cost center it is charged to (an ERP external_id, or free text)'),
    description: z.string().nullable(),
    spent_on: DateOnly.nullable().describe('The day the cost was incurred'),
    receipt_file_path: z
      .string()
      .nullable()
      .describe(
        'URL of the receipt: the link given, or the API URL of an uploaded one (served to the company only); for a documento soporte, its XML',
      ),
    receipt_file_name: z.string().nullable(),
    reimbursed_person: ReimbursedPersonBody.nullable().describe('Null when nobody is paid back'),
  })
  .meta({
    id: 'DocumentExpense',
    description:
      'What an `expense` document adds: its category, cost center, receipt and who is reimbursed. Null on every other type',
  });

export const Prepaid = z
  .strictObject({
    amount: z.number().describe('PrepaidAmount, in amount_currency'),
    convention: z
      .enum(PREPAID_CONVENTIONS)
      .describe(
        [
          "How the file's PayableAmount treated it:",
          '`payable_net_of_prepaid` when PayableAmount was already the total less the prepaid amount, `payable_includes_prepaid` when it was the total.',
          'Either way `amount` is the total and the payables are `amount` less the prepaid amount',
        ].join(' '),
      ),
  })
  .meta({ id: 'DocumentPrepaid' });

export const DocumentBase = {
  reference: Reference,
  document_number: z.string(),
  type: DocumentType,
  amount: z
    .number()
    .describe(
      'Total of the document (DIAN: PayableAmount plus PrepaidAmount; CFDI: Total). What the company prepaid is in `prepaid` and not in the payables',
    ),
  amount_currency: Currency,
  prepaid: Prepaid.nullable().describe(
    'What the fiscal document says was paid in advance (DIAN `cac:LegalMonetaryTotal/cbc:PrepaidAmount`); null when nothing was',
  ),
  exchange_rate: DocumentExchangeRate.nullable().describe(
    [
      "The rate the fiscal document states from `amount_currency` to the company's local currency (DIAN `cac:PaymentExchangeRate`, CFDI `TipoCambio`):",
      'local amount = amount × rate.',
      'Null for a document in the local currency, or when the file states none',
    ].join(' '),
  ),
  approval_status: ApprovalStatus.describe(
    '`in_review` while an approval step of the flow is open, then `approved` or `rejected` (a rejection ends the flow); POST …/approve makes it `approved` from any state',
  ),
  payment_status: DocumentPaymentStatus.describe(
    [
      'Counts processed payments, payable by payable:',
      '`paid` when every payable that is not canceled is fully paid, `partial` when some money was paid, else `pending`.',
      'An invoice or debit note with nothing left to pay (`amount` all prepaid) has no payable and is `paid` once approved',
    ].join(' '),
  ),
  is_archived: z
    .boolean()
    .describe(
      'Set by POST /documents/{reference}/archive, cleared by …/unarchive: archived documents are listed with `is_archived=true` only',
    ),
  created_at: DateTime,
  updated_at: DateTime,
  issue_date: DateTime.nullable(),
  expiration_date: DateTime.nullable(),
  fiscal_reference: z
    .string()
    .nullable()
    .describe(
      'CUFE (96 hex characters) in Colombia (the CUDS of a documento soporte), fiscal UUID in Mexico; null for an expense recorded without a fiscal document',
    ),
  fiscal_metadata: z
    .strictObject({
      final_notes: z.array(z.string()),
      stated_exchange_rate: StatedExchangeRate.nullable().describe(
        'A rate the file states though its amounts are in the local currency (information only); null otherwise',
      ),
    })
    .nullable(),
  file_path: z.string().nullable().describe('URL of the fiscal XML (or PDF)'),
  purchase_order: z.string().nullable(),
  tags: z.array(z.string()),
  is_admited: z.boolean().describe('True when the system tag `admitido` is present'),
  is_canceled: z
    .boolean()
    .describe(
      [
        'True once the tax authority lists the document as cancelled:',
        'a Mexican CFDI whose SAT metadata says `Estatus` 0 (read by the fiscal sync or `ops documents import`).',
        'Its open payables are then `canceled`, its pending payments canceled, and a new payment of it is refused (`document_canceled`).',
        'Never true for a Colombian document: DIAN cancels nothing, a credit note annuls it',
      ].join(' '),
    ),
  canceled_at: DateTime.nullable().describe(
    "When the tax authority cancelled the document (SAT's `FechaCancelacion`, Mexico City time); null while it is not cancelled",
  ),
  created_by: z.strictObject({ source: z.string(), user: z.string().nullable() }).nullable(),
};

export const AccountingBody = z
  .strictObject({
    reference: z.uuid().describe("The voucher's reference (`accounting_entry.reference` in `document.accounted`)"),
    status: z.enum(ACCOUNTING_ENTRY_STATUSES),
    accounted_at: DateTime,
    registration_state: z
      .enum(REGISTRATION_STATES)
      .describe(
        '`awaiting_catalog` while the ERP catalog lacks a book account the voucher needs (named in `missing_catalog_entries`; it is handed over once the ERP syncs them), ' +
          '`awaiting_classification` while a person chooses, through a `book_account` classification step, the book account of lines no evidence places, ' +
          '`awaiting_order_review` while a person reviews, through a step, invoice lines that do not match their purchase order, ' +
          '`held` once a person rejected that review (the voucher is not sent; the reason is in `failure`), ' +
          '`registering` while the hand-off runs, `registered` once the ERP answered 200, `failed` once it answered 422 (or gave up), `pending` when no receiver is subscribed',
      ),
    missing_catalog_entries: z
      .array(
        z
          .strictObject({
            catalog: z
              .enum(['book_accounts', 'taxes'])
              .describe('The ERP catalog to sync (POST /erp/book-accounts or /erp/taxes)'),
            role: z
              .enum(['expense', 'supplier_payable', 'supplier_advance', 'tax', 'withholding'])
              .describe(
                'Book accounts: `expense` (no active debit account to choose from), `supplier_payable` (credit nature, PUC 22 in Colombia, 201 in Mexico), ' +
                  '`supplier_advance` (PUC 1330, 120 in Mexico). Taxes: `tax` or `withholding` of the type and rate `description` names, with its book account',
              ),
            description: z.string(),
          })
          .meta({ id: 'MissingCatalogEntry' }),
      )
      .describe('What the ERP catalog must sync before the voucher can be proposed; empty unless `awaiting_catalog`'),
    failure: z
      .strictObject({ code: z.string(), message: z.string().nullable() })
      .nullable()
      .describe(
        "The ERP's 422 `error` (its code and message, as it answered them), why the hand-off gave up, or, when `held`, why the voucher is held",
      ),
    retry_allowed: z
      .boolean()
      .describe(
        [
          'True when POST /documents/{reference}/accounting/retry may hand the voucher over again:',
          'it is posted and neither registered nor on its way (a receiver of document.accounted must be subscribed)',
        ].join(' '),
      ),
  })
  .meta({ id: 'DocumentAccounting' });

/** What `fields=` can add to each document of the list. */
export const EXPANSIONS = [
  'beneficiaries',
  'payments',
  'payables',
  'document_support',
  'invoice_reception_events',
  'payment_receipt_complements',
  'expenses',
  'logs',
  'erp_document',
  'accounting',
  'notes',
] as const;
export type Expansion = (typeof EXPANSIONS)[number];

const Expanded = {
  beneficiary: BeneficiaryBody.nullable(),
  payments: z.array(DocumentPayment),
  payables: z.array(PayableBody),
  document_support: DocumentSupportBody.nullable().describe(
    'The documento soporte of an expense imported from DIAN; null otherwise',
  ),
  invoice_reception_events: z.array(ReceptionEventEntry),
  payment_receipt_complements: z.array(PaymentReceiptComplementBody),
  expenses: ExpenseBody.nullable().describe('Set on `expense` documents; null on invoices and notes'),
  logs: z.array(LogBody),
  erp_document: ErpDocumentBody.nullable(),
  accounting: AccountingBody.nullable().describe(
    'Where the voucher stands in the ERP hand-off (`document.accounted`); null while the document is not accounted',
  ),
  notes: z.array(NoteBody),
};

export const DocumentListItem = z
  .strictObject({
    ...DocumentBase,
    ...Object.fromEntries(Object.entries(Expanded).map(([key, schema]) => [key, schema.optional()])),
  } as typeof DocumentBase & {
    [K in keyof typeof Expanded]: z.ZodOptional<(typeof Expanded)[K]>;
  })
  .meta({
    id: 'DocumentListItem',
    description: 'A document of the list: the base fields, plus those asked for with `fields`.',
  });

export const DocumentDetail = z.strictObject({ ...DocumentBase, ...Expanded, line_items: z.array(LineItemBody) }).meta({
  id: 'Document',
  description: 'The full document, with every expansion, its line items, notes and payables.',
});
