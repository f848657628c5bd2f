import { AccountingEntry } from '../../db/accounting/accounting-entry.entity.ts';
import { ErpDocument } from '../../db/accounting/erp-document.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { registerCrossedQuantities } from '../../db/erp/purchase-order-receipts.ts';
import { applyAdvanceCrossings } from '../payments/advance-crossings.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import {
  claimDelivery,
  FINAL_DELIVERY_STATUSES,
  recordAttempt,
  type AttemptRecord,
  type DeliveryToSend,
} from '../../db/webhooks/webhook-delivery.repository.ts';
import { pinnedFetch } from '../../platform/outbound-http.ts';
import { noAnswer, readTextUpTo } from '../../platform/outside-http.ts';
import { judgeReceiver, type OutboundPolicy, type Resolve } from '../../platform/outbound-policy.ts';
import { holdsNul, readRegistration, readRejection, type ErpRegistration, type ErpRejection } from './erp-answer.ts';
import { erpDocumentData, loadVoucherCatalog } from './erp-document-data.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { WEBHOOK_HEADERS, signBody } from './signature.ts';

export interface DeliveryDeps {
  orm: Orm;
  secrets: SecretBox;
  /** Which receivers may be reached (public, allowed networks, loopback in development). */
  outbound: OutboundPolicy;
  /** Host names to addresses; the system resolver unless a test gives another. */
  resolve?: Resolve;
}

/** What one attempt achieved: `retry` asks the workflow to try again later; the others are final. */
export type AttemptOutcome = {
  event: string;
  outcome: 'delivered' | 'retry' | 'failed' | 'rejected';
  statusCode: number | null;
  error: string | null;
};

const MAX_RESPONSE_BYTES = 64 * 1024;
/** Beyond the receiver's timeout, how long a sending attempt holds its delivery (signing, recording the answer). */
const HOLD_MARGIN_SECONDS = 15;

/**
 * Another run of this attempt is sending the delivery (a workflow task that ran it was retried while it still ran):
 * retried later, when that run has recorded its outcome or its hold has expired.
 */
export class DeliveryInFlight extends Error {
  constructor(deliveryId: string) {
    super(`Delivery ${deliveryId} is being sent by another run of its attempt`);
    this.name = 'DeliveryInFlight';
  }
}

/** Sends one attempt of a delivery, signed, and records it; for `document.accounted` also records what the ERP said. */
export async function attemptDelivery(
  deps: DeliveryDeps,
  input: { companyId: string; deliveryId: string; attempt: number },
): Promise<AttemptOutcome> {
  const em = companyEm(deps.orm, input.companyId);
  const delivery = await claimDelivery(em, input.companyId, input.deliveryId, HOLD_MARGIN_SECONDS);
  if (!delivery) throw new Error(`Delivery ${input.deliveryId} does not exist`);
  // A retried activity whose first run already finished the delivery must not send it again.
  if (FINAL_DELIVERY_STATUSES.includes(delivery.status))
    return {
      event: delivery.event,
      outcome: delivery.status as AttemptOutcome['outcome'],
      statusCode: delivery.lastStatusCode,
      error: null,
    };
  if (!delivery.held) throw new DeliveryInFlight(delivery.id);
  const attempt = { companyId: input.companyId, deliveryId: delivery.id, attempt: input.attempt };
  // Resolved and judged afresh for each attempt: a receiver registered under an earlier policy meets today's.
  const target = await judgeReceiver(new URL(delivery.url), deps.outbound, deps.resolve);
  // Nothing is sent: a refused receiver fails for good, one that does not resolve is tried again later.
  if (!('addresses' in target)) {
    const outcome = 'refusal' in target ? 'failed' : 'retry';
    return record(
      em,
      delivery,
      { ...attempt, startedAt: new Date(), latencyMs: null },
      {
        event: delivery.event,
        outcome,
        statusCode: null,
        error: 'refusal' in target ? target.refusal : target.unresolved,
      },
      null,
    );
  }

  const startedAt = new Date();
  const started = performance.now();
  let statusCode: number | null = null;
  let text = '';
  let error: string | null = null;
  try {
    const response = await pinnedFetch(target.addresses, delivery.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(delivery.timeoutSeconds * 1000),
      headers: requestHeaders(delivery, deps.secrets.open(delivery.secretCiphertext), startedAt),
      body: delivery.body,
    });
    statusCode = response.status;
    ({ text } = await readTextUpTo(response, MAX_RESPONSE_BYTES));
  } catch (thrown) {
    error = noAnswer(thrown, delivery.timeoutSeconds * 1000);
  }
  const latencyMs = Math.round(performance.now() - started);
  const json = parseJson(text);
  const { answer, ...result } =
    delivery.event === 'document.accounted'
      ? accountedOutcome(statusCode, json, error)
      : { ...plainOutcome(statusCode, error), answer: null };
  return record(
    em,
    delivery,
    { ...attempt, startedAt, latencyMs },
    { event: delivery.event, ...result },
    keptResponse(json, text),
    answer,
  );
}

/**
 * The subscription's extra headers, then ours, set last: a name that differs from ours only in case (fetch would
 * join both values) is replaced, not merged. New subscriptions cannot name them; older ones may.
 */
function requestHeaders(delivery: DeliveryToSend, secret: string, startedAt: Date): Record<string, string> {
  const headers = new Headers(delivery.headers);
  headers.set('content-type', 'application/json');
  headers.set('user-agent', 'accounts-payable-webhooks/1');
  headers.set(WEBHOOK_HEADERS.signature, signBody(secret, delivery.body));
  headers.set(WEBHOOK_HEADERS.event, delivery.event);
  headers.set(WEBHOOK_HEADERS.timestamp, startedAt.toISOString());
  headers.set(WEBHOOK_HEADERS.deliveryId, delivery.id);
  return Object.fromEntries(headers);
}

/** The answer as kept for operators: its JSON, or its text when it is not JSON (or holds U+0000, which jsonb refuses). */
function keptResponse(json: unknown, text: string): unknown {
  if (json !== null && !holdsNul(json)) return json;
  return text ? { raw: text.slice(0, 2000).replaceAll('\0', '\uFFFD') } : null;
}

/** Any 2xx delivers; 408, 429 and 5xx (and no answer) are retried; another 4xx means the receiver refuses it for good. */
function plainOutcome(statusCode: number | null, error: string | null): Omit<AttemptOutcome, 'event'> {
  if (statusCode === null) return { outcome: 'retry', statusCode, error };
  if (statusCode >= 200 && statusCode < 300) return { outcome: 'delivered', statusCode, error: null };
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500)
    return { outcome: 'retry', statusCode, error: `HTTP ${statusCode}` };
  return { outcome: 'failed', statusCode, error: `HTTP ${statusCode}` };
}

/** What the ERP said, when it settles the hand-off: the ids it registered the voucher with, or its rejection. */
type ErpAnswer = { registration: ErpRegistration } | { rejection: ErpRejection } | null;

/**
 * The synchronous hand-off: a readable 200 registers; a 422 in the receiver-error shape rejects (no automatic retry);
 * the rest (5xx, timeouts, unreadable answers, including a 422 without that shape) is retried.
 */
function accountedOutcome(
  statusCode: number | null,
  json: unknown,
  error: string | null,
): Omit<AttemptOutcome, 'event'> & { answer: ErpAnswer } {
  if (statusCode === null) return { outcome: 'retry', statusCode, error, answer: null };
  if (statusCode === 200) {
    const registration = readRegistration(json);
    if (registration.ok)
      return { outcome: 'delivered', statusCode, error: null, answer: { registration: registration.value } };
    return {
      outcome: 'retry',
      statusCode,
      error: json === null ? 'The answer is not JSON' : registration.error,
      answer: null,
    };
  }
  if (statusCode === 422) {
    const rejection = readRejection(json);
    if (rejection.ok)
      return {
        outcome: 'rejected',
        statusCode,
        error: rejection.value.message,
        answer: { rejection: rejection.value },
      };
    return {
      outcome: 'retry',
      statusCode,
      error: json === null ? 'HTTP 422 with an answer that is not JSON' : rejection.error,
      answer: null,
    };
  }
  return { outcome: 'retry', statusCode, error: `HTTP ${statusCode}`, answer: null };
}

/** Records the attempt and ends its hold; a final `document.accounted` also records the registration, in the same transaction. */
async function record(
  em: EntityManager,
  delivery: DeliveryToSend,
  attempt: Omit<AttemptRecord, 'statusCode' | 'error' | 'status' | 'response'>,
  outcome: AttemptOutcome,
  response: unknown,
  answer: ErpAnswer = null,
): Promise<AttemptOutcome> {
  const written: AttemptRecord = {
    ...attempt,
    statusCode: outcome.statusCode,
    error: outcome.error,
    status: outcome.outcome === 'retry' ? 'delivering' : outcome.outcome,
    response,
  };
  if (delivery.event !== 'document.accounted' || outcome.outcome === 'retry') {
    await recordAttempt(em, written);
    return outcome;
  }
  await em.transactional(async (tx) => {
    await recordAttempt(tx, written);
    await recordRegistration(tx, await tx.findOneOrFail(WebhookDelivery, { id: delivery.id }), outcome, answer);
  });
  return outcome;
}

/** What the ERP answered to `document.accounted`, on the voucher, the document's erp_document, and its log. */
async function recordRegistration(
  em: EntityManager,
  delivery: WebhookDelivery,
  outcome: AttemptOutcome,
  answer: ErpAnswer,
): Promise<void> {
  const entry = delivery.subjectId
    ? await em.findOne(AccountingEntry, { id: delivery.subjectId }, { populate: ['document'] })
    : null;
  if (!entry) return;
  const document = entry.document;
  const registration = answer && 'registration' in answer ? answer.registration : null;
  if (registration) {
    // A delivery sent again gets the same answer: only the voucher's first registration receives what it crossed.
    // One conditional update, so that of two answers recorded at once (two receivers) only one counts as the first.
    const firstRegistration =
      (await em.nativeUpdate(
        AccountingEntry,
        { id: entry.id, registrationState: { $ne: 'registered' } },
        { registrationState: 'registered' },
      )) > 0;
    entry.registrationState = 'registered';
    entry.failureCode = null;
    entry.failureMessage = null;
    const data = erpDocumentData(document, entry, registration, await loadVoucherCatalog(em, entry));
    await em.upsert(
      ErpDocument,
      {
        company: entry.company,
        document,
        registered: true,
        erpInvoiceId: registration.erpInvoiceId,
        invoiceReference: registration.invoiceReference,
        registeredAt: new Date(),
        data,
      },
      { onConflictFields: ['document'], onConflictAction: 'merge' },
    );
    if (firstRegistration && entry.journalEntry)
      await registerCrossedQuantities(em, entry.company.id, entry.journalEntry);
    // The advances the ERP crossed count as paid on the invoice from its first registration on.
    if (firstRegistration) await applyAdvanceCrossings(em, entry);
  } else {
    entry.registrationState = 'failed';
    entry.failureCode = answer && 'rejection' in answer ? answer.rejection.code : 'delivery_failed';
    entry.failureMessage = outcome.error;
  }
  em.create(ActivityLog, {
    company: entry.company,
    document,
    event: 'document.updated',
    actor: { type: 'system', source: 'erp' },
    metadata: registration
      ? {
          change: 'erp_registered',
          accounting_entry: entry.id,
          erp_invoice_id: registration.erpInvoiceId,
          invoice_reference: registration.invoiceReference,
          crossed: entry.isCrossed,
        }
      : {
          change: 'erp_registration_failed',
          accounting_entry: entry.id,
          code: entry.failureCode,
          message: entry.failureMessage,
        },
  });
}

/** Marks a delivery failed once its attempts are exhausted. */
export async function giveUpDelivery(
  orm: Orm,
  input: { companyId: string; deliveryId: string; error: string | null },
): Promise<void> {
  const em = companyEm(orm, input.companyId);
  await em.transactional(async (tx) => {
    const delivery = await tx.findOneOrFail(WebhookDelivery, { id: input.deliveryId });
    if (delivery.status === 'delivered' || delivery.status === 'rejected') return;
    delivery.status = 'failed';
    if (delivery.event === 'document.accounted')
      await recordRegistration(
        tx,
        delivery,
        { event: delivery.event, outcome: 'failed', statusCode: delivery.lastStatusCode ?? null, error: input.error },
        null,
      );
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}
