import { z } from 'zod';

// The webhooks the service sends, for the OpenAPI document's `webhooks`: what a receiver gets and may answer.

const DateTime = z.iso.datetime({ offset: true });
const Day = z.iso.date();

const DELIVERY =
  'Signed with the subscription secret: `X-Service-Signature` is the hex HMAC-SHA256 of the raw body; `X-Service-Event`, `X-Service-Timestamp` and `X-Service-Delivery-Id` (the same on every attempt: deduplicate on it) come with it. ' +
  'Reject a timestamp more than 5 minutes away from your clock unless its delivery id was already seen. Any 2xx delivers; 408, 429, 5xx, timeouts and connection errors are retried (3 retries unless the subscription says otherwise; waits from 30 s, doubling, capped at 1 h, times a jitter in [0.5, 1)); another 4xx fails the delivery for good. ' +
  'These three are the only events sent; payment outcomes are read through GET /payments/{reference}.';

const DocumentCreated = z
  .strictObject({
    event: z.literal('document.created'),
    timestamp: DateTime,
    data: z
      .record(z.string(), z.unknown())
      .describe(
        'The document as GET /documents?fields=beneficiaries lists it, with `amount` and `prepaid.amount` in integer cents',
      ),
  })
  .meta({ id: 'DocumentCreatedEvent' });

const DocumentAccounted = z
  .strictObject({
    event: z.literal('document.accounted'),
    timestamp: DateTime,
    data: z
      .record(z.string(), z.unknown())
      .describe(
        'reference (deduplicate on it), document_number, type, issue_date (YYYY-MM-DD, the day where it was issued), expiration_date, amount (integer cents), amount_currency, status, payment_status, fiscal_reference, fiscal_metadata, file_path, purchase_order, beneficiary, accounting_entry (reference, accounted_at, is_crossed, summary, journal_entry, advance_crossings, registration_payload); catalog references are ERP external ids. ' +
          "Besides the voucher's own keys, journal_entry has currency (the document's), exchange_rate (as the document shows it; " +
          'null for a document in the local currency or without a rate), on each line local_debit_cents / local_credit_cents and ' +
          "on each payment line local_amount_cents: integer cents in the company's local currency, converted at the rate half up " +
          'line by line, with the rounding difference on the largest line of the side that falls short so that local debits and ' +
          "credits balance whenever the voucher does; the line's own amounts for a document in the local currency, null for one " +
          'in another currency without a rate. ' +
          'In the advance_crossings the service proposes, external_move_id and external_payment_id are always null in this version ' +
          "(the ERP reports an advance's balance, never its own ids for it) and external_move_line_id is the advance payment's " +
          'reference, as `reference` is; a voucher given as a file carries its crossings as given',
      ),
  })
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
        description:
          'Refused for good (the accounting is marked failed, the message is shown to the customer, who retries it through POST /documents/{reference}/accounting/retry once the cause is fixed); a 422 in another shape is retried like a 5xx',
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
