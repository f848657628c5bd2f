import { z } from 'zod';
import { BeneficiaryBody, DocumentBase } from '../../read-models/document-schema.ts';
import { ApprovalStatus, DocumentPaymentStatus } from '../../read-models/enums.ts';
import { DocumentExchangeRate } from '../../read-models/exchange-rate-schema.ts';
import { Currency, Reference } from '../../platform/schema-atoms.ts';

// The webhooks the service sends, for the OpenAPI document's `webhooks`: what a receiver gets and may answer.

const DateTime = z.iso.datetime({ offset: true });
const Day = z.iso.date();

const DELIVERY =
  'Signed with the subscription secret: `X-Service-Signature` is the hex HMAC-SHA256 of the raw body; ' +
  '`X-Service-Event`, `X-Service-Timestamp` and `X-Service-Delivery-Id` (the same on every attempt: deduplicate on it) come with it. ' +
  'Reject a timestamp more than 5 minutes away from your clock unless its delivery id was already seen. ' +
  'Any 2xx delivers; 408, 429, 5xx, timeouts and connection errors are retried ' +
  '(3 retries unless the subscription says otherwise; waits from 30 s, doubling, capped at 1 h, times a jitter in [0.5, 1)); ' +
  'another 4xx fails the delivery for good. ' +
  'These three are the only events sent; payment outcomes are read through GET /payments/{reference}.';

const Cents = z.number().int();
const ExternalId = z.string().describe("An ERP catalog record's external_id");

const DocumentCreatedData = z.strictObject({ ...DocumentBase, beneficiary: BeneficiaryBody.nullable() }).meta({
  id: 'DocumentCreatedData',
  description:
    'The document as GET /documents?fields=beneficiaries lists it, except that `amount` and `prepaid.amount` are integer cents',
});

const DocumentCreated = z
  .strictObject({ event: z.literal('document.created'), timestamp: DateTime, data: DocumentCreatedData })
  .meta({ id: 'DocumentCreatedEvent' });

const VoucherLine = z
  .strictObject({
    source: z.enum(['document', 'agent', 'front', 'purchase_order', 'goods_receipt']),
    description: z.string().nullable(),
    book_account_external_id: ExternalId,
    debit_cents: Cents.nullable().describe('Exactly one of debit_cents and credit_cents is set'),
    credit_cents: Cents.nullable(),
    quantity: z.number().nullable(),
    unit_price_cents: Cents.nullable(),
    discount: z.number().nullable().describe('An amount, in cents'),
    discount_rate: z.number().nullable().describe('A percentage'),
    product_external_id: z.string().nullable(),
    vendor_external_id: z.string().nullable().describe("Set when it differs from the voucher's vendor"),
    cost_centers: z.array(z.strictObject({ cost_center_external_id: z.string(), percentage: z.number() })),
    warehouses: z.array(z.strictObject({ warehouse_external_id: z.string() })),
    taxes: z.array(
      z.strictObject({
        tax_external_id: z.string(),
        base_cents: Cents,
        amount_cents: Cents,
        type: z.string().nullable(),
      }),
    ),
    purchase_order_line_external_id: z.string().nullable(),
    goods_receipt_line_external_id: z.string().nullable(),
    metadata: z
      .record(z.string(), z.unknown())
      .describe(
        "Why the line is there: for the agent's lines `account_source` (the evidence that names the account), and marks such as `prepaid` or `document_level`",
      ),
    local_debit_cents: Cents.nullable().describe("debit_cents in the company's local currency (see journal_entry)"),
    local_credit_cents: Cents.nullable().describe("credit_cents in the company's local currency"),
  })
  .meta({ id: 'VoucherLine' });

const VoucherPaymentLine = z
  .strictObject({
    book_account_external_id: ExternalId,
    book_account_code: z.string().nullable(),
    book_account_name: z.string().nullable(),
    amount_cents: Cents,
    due_date: Day,
    quota_number: z.number().int().min(1),
    payment_method_external_id: z.string().nullable(),
    cost_center_external_id: z.string().nullable(),
    local_amount_cents: Cents.nullable().describe("amount_cents in the company's local currency"),
  })
  .meta({ id: 'VoucherPaymentLine', description: 'The counterpart owed to the supplier, one per installment' });

const JournalEntry = z
  .strictObject({
    status: z.enum(['posted', 'cancelled']),
    document_number: z.string(),
    document_type_external_id: z.string().nullable(),
    vendor_external_id: z.string().nullable(),
    issue_date: Day,
    posting_date: Day.nullable(),
    expiration_date: Day.nullable(),
    cost_center_external_id: z.string().nullable(),
    description: z.string().nullable(),
    erp_journal_entry_lines: z.array(VoucherLine),
    payment_lines: z.array(VoucherPaymentLine),
    erp_journal_entry_taxes: z.array(z.record(z.string(), z.unknown())),
    currency: Currency.describe("The document's currency, which the lines' own amounts are in"),
    exchange_rate: DocumentExchangeRate.nullable().describe(
      'The rate to the local currency as the document shows it; null for a document in the local currency or without a rate. ' +
        'The local amounts are converted at it half up line by line, the rounding difference on the largest line of the side that falls short, ' +
        "so local debits and credits balance whenever the voucher does; they are the line's own amounts for a document in the local currency, " +
        'and null for one in another currency without a rate',
    ),
  })
  .meta({ id: 'VoucherJournalEntry' });

const AdvanceCrossing = z
  .strictObject({
    external_move_line_id: z
      .string()
      .describe("In the crossings the service proposes, the advance payment's reference, as `reference` is"),
    external_move_id: z
      .string()
      .nullable()
      .describe(
        "Always null in the crossings the service proposes: the ERP reports an advance's balance, never its own ids for it",
      ),
    external_payment_id: z
      .string()
      .nullable()
      .describe("The advance's payment id in the ERP when the ERP reported one, else null"),
    amount_cents: Cents.describe('What the voucher crosses of the advance'),
    original_amount_cents: Cents,
    outstanding_amount_cents: Cents.describe(
      'What would be left of the advance; report the balance your ERP keeps through PUT /erp/advances/{reference}',
    ),
    currency: z.string(),
    advance_date: Day,
    status: z.string().nullable(),
    reference: z.string().nullable(),
  })
  .meta({ id: 'VoucherAdvanceCrossing' });

const DocumentAccountedData = z
  .strictObject({
    reference: Reference.describe('The document: deduplicate on it'),
    document_number: z.string(),
    type: z
      .enum(['invoice', 'credit_note', 'debit_note'])
      .describe(
        'An expense (a documento soporte or one created through the API) is booked like an invoice and sent as `invoice`, with `is_expense`',
      ),
    is_expense: z.boolean().describe('An extension of the contract: true for an `expense` document, sent as `invoice`'),
    issue_date: Day.nullable().describe('The day where the document was issued'),
    expiration_date: DateTime.nullable(),
    amount: Cents,
    amount_currency: Currency,
    status: ApprovalStatus,
    payment_status: DocumentPaymentStatus,
    fiscal_reference: z.string().nullable(),
    fiscal_metadata: z.strictObject({ final_notes: z.array(z.string()) }),
    file_path: z.string().nullable(),
    purchase_order: z.string().nullable(),
    beneficiary: z
      .strictObject({
        reference: Reference,
        name: z.string(),
        identifier_type: z.string(),
        identifier_number: z.string(),
      })
      .nullable(),
    accounting_entry: z
      .strictObject({
        reference: Reference,
        accounted_at: DateTime,
        is_crossed: z
          .boolean()
          .describe('A line crosses a purchase order or a goods receipt: register the voucher against that document'),
        summary: z
          .record(z.string(), z.unknown())
          .describe(
            "Totals: debit_cents, credit_cents, lines and payment_lines for the service's vouchers; as given for a voucher given as a file",
          ),
        journal_entry: JournalEntry,
        advance_crossings: z.array(AdvanceCrossing),
        registration_payload: z
          .unknown()
          .describe('The original input of a voucher given as a file (traceability only); null otherwise'),
      })
      .describe('Never null here: the event is sent once the document is accounted'),
  })
  .meta({ id: 'DocumentAccountedData' });

const DocumentAccounted = z
  .strictObject({ event: z.literal('document.accounted'), timestamp: DateTime, data: DocumentAccountedData })
  .meta({ id: 'DocumentAccountedEvent' });

const PaymentRescheduled = z
  .strictObject({
    event: z.literal('payment.rescheduled'),
    timestamp: DateTime,
    payment_id: z.uuid(),
    previous_due_date: Day.nullable().describe('Null when the payment had no due date before'),
    new_due_date: Day,
  })
  .meta({ id: 'PaymentRescheduledEvent' });

const Registered = z
  .strictObject({
    erp_invoice_id: z
      .string()
      .min(1)
      .describe("The voucher's id in your ERP: stored and shown in the document's erp_document"),
    invoice_reference: z
      .string()
      .nullable()
      .describe('The consecutive your ERP assigned; null when it has not yet, which is not an error'),
  })
  .meta({
    id: 'VoucherRegistered',
    description: 'Your ERP registered the voucher: its id, and its consecutive once assigned',
  });
const Refused = z
  .strictObject({ error: z.strictObject({ code: z.string().min(1).max(255), message: z.string() }) })
  .meta({ id: 'ReceiverError', description: 'Why your ERP refused the voucher: shown to the customer, who may retry' });

export interface WebhookDescription {
  event: string;
  summary: string;
  payload: z.ZodType;
  /** What the receiver may answer, by status, when the answer means more than "received". */
  answers: { status: number; description: string; schema?: z.ZodType }[];
}

/** The payload schemas, by event: what the service sends, tested against what it does send. */
export const WEBHOOK_PAYLOADS = {
  'document.created': DocumentCreated,
  'document.accounted': DocumentAccounted,
  'payment.rescheduled': PaymentRescheduled,
} as const;

export const WEBHOOKS: WebhookDescription[] = [
  {
    event: 'document.created',
    summary: `A new document appeared (imported, or found by a fiscal synchronisation). ${DELIVERY}`,
    payload: DocumentCreated,
    answers: [{ status: 200, description: 'Received (any 2xx)' }],
  },
  {
    event: 'document.accounted',
    summary: `Synchronous hand-off of a posted voucher to your ERP: answer once it is registered there (within 120 s unless the subscription says otherwise). ${DELIVERY}`,
    payload: DocumentAccounted,
    answers: [
      {
        status: 200,
        description: 'Registered; for a reference already registered, answer the ids given the first time',
        schema: Registered,
      },
      {
        status: 422,
        description: [
          'Refused for good (the accounting is marked failed, the message is shown to the customer,',
          'who retries it through POST /documents/{reference}/accounting/retry once the cause is fixed);',
          'a 422 in another shape is retried like a 5xx',
        ].join(' '),
        schema: Refused,
      },
    ],
  },
  {
    event: 'payment.rescheduled',
    summary: `A payment's due date was changed from the platform. ${DELIVERY}`,
    payload: PaymentRescheduled,
    answers: [{ status: 200, description: 'Received (any 2xx)' }],
  },
];
