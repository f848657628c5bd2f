import { AccountingEntry } from '../../db/accounting/accounting-entry.entity.ts';
import { ErpDocument } from '../../db/accounting/erp-document.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { WebhookDeliveryAttempt } from '../../db/webhooks/webhook-delivery-attempt.entity.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { pointsOutsidePublicInternet } from '../../api/url-safety.ts';
import type { SecretBox } from './secret-box.ts';
import { WEBHOOK_HEADERS, signBody } from './signature.ts';

export interface DeliveryDeps {
  orm: Orm;
  secrets: SecretBox;
  /** Outside production, http to loopback receivers is allowed (simulators, local ERPs). */
  environment: 'development' | 'production';
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
export async function attemptDelivery(deps: DeliveryDeps, input: { companyId: string; deliveryId: string; attempt: number }): Promise<AttemptOutcome> {
  const em = companyEm(deps.orm, input.companyId);
  const delivery = await em.findOneOrFail(WebhookDelivery, { id: input.deliveryId }, { populate: ['subscription'] });
  // A retried activity whose first run already finished the delivery must not send it again.
  if (delivery.status === 'delivered' || delivery.status === 'rejected' || delivery.status === 'failed') {
    return { event: delivery.event, outcome: delivery.status, statusCode: delivery.lastStatusCode ?? null, error: null };
  }
  const subscription = delivery.subscription;
  const refusal = await unsafeTarget(subscription.url, deps.environment);
  if (refusal) return record(em, delivery, input.attempt, new Date(), null, { event: delivery.event, outcome: 'failed', statusCode: null, error: refusal }, null);

  if (!(await hold(em, delivery, subscription.timeoutSeconds + HOLD_MARGIN_SECONDS))) throw new DeliveryInFlight(delivery.id);
  const startedAt = new Date();
  const started = performance.now();
  let statusCode: number | null = null;
  let text = '';
  let error: string | null = null;
  try {
    const response = await fetch(subscription.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(subscription.timeoutSeconds * 1000),
      headers: {
        ...subscription.headers,
        'content-type': 'application/json',
        'user-agent': 'accounts-payable-webhooks/1',
        [WEBHOOK_HEADERS.signature]: signBody(deps.secrets.open(subscription.secretCiphertext), delivery.body),
        [WEBHOOK_HEADERS.event]: delivery.event,
        [WEBHOOK_HEADERS.timestamp]: startedAt.toISOString(),
        [WEBHOOK_HEADERS.deliveryId]: delivery.id,
      },
      body: delivery.body,
    });
    statusCode = response.status;
    text = (await response.text()).slice(0, MAX_RESPONSE_BYTES);
  } catch (thrown) {
    const cause = thrown as Error;
    error = cause.name === 'TimeoutError' ? `No answer within ${subscription.timeoutSeconds} s` : `${cause.message}${cause.cause ? `: ${(cause.cause as Error).message}` : ''}`;
  }
  const latencyMs = Math.round(performance.now() - started);
  const json = parseJson(text);
  const outcome = { event: delivery.event, ...(delivery.event === 'document.accounted' ? accountedOutcome(statusCode, json, error) : plainOutcome(statusCode, error)) };
  return record(em, delivery, input.attempt, startedAt, latencyMs, outcome, json ?? (text ? { raw: text.slice(0, 2000) } : null));
}

/** Takes the delivery for one send unless another run holds it; the hold ends when the attempt is recorded. */
async function hold(em: EntityManager, delivery: WebhookDelivery, seconds: number): Promise<boolean> {
  const held = await em.execute<{ id: string }[]>(
    `update "webhook_deliveries" set "sending_until" = now() + make_interval(secs => ?)
     where "id" = ? and "company_id" = ? and ("sending_until" is null or "sending_until" < now()) returning "id"`,
    [seconds, delivery.id, delivery.company.id],
  );
  return held.length === 1;
}

/** Any 2xx delivers; 408, 429 and 5xx (and no answer) are retried; another 4xx means the receiver refuses it for good. */
function plainOutcome(statusCode: number | null, error: string | null): Omit<AttemptOutcome, 'event'> {
  if (statusCode === null) return { outcome: 'retry', statusCode, error };
  if (statusCode >= 200 && statusCode < 300) return { outcome: 'delivered', statusCode, error: null };
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) return { outcome: 'retry', statusCode, error: `HTTP ${statusCode}` };
  return { outcome: 'failed', statusCode, error: `HTTP ${statusCode}` };
}

/** The synchronous hand-off: 200 with erp_invoice_id registers; 422 rejects (no automatic retry); the rest is retried. */
function accountedOutcome(statusCode: number | null, json: unknown, error: string | null): Omit<AttemptOutcome, 'event'> {
  if (statusCode === null) return { outcome: 'retry', statusCode, error };
  const body = json as { erp_invoice_id?: unknown; error?: { code?: unknown; message?: unknown } } | null;
  if (statusCode === 200) {
    if (typeof body?.erp_invoice_id === 'string' && body.erp_invoice_id !== '') return { outcome: 'delivered', statusCode, error: null };
    return { outcome: 'retry', statusCode, error: body ? 'The answer has no erp_invoice_id' : 'The answer is not JSON' };
  }
  if (statusCode === 422) return { outcome: 'rejected', statusCode, error: typeof body?.error?.message === 'string' ? body.error.message : 'Rejected by the ERP' };
  return { outcome: 'retry', statusCode, error: `HTTP ${statusCode}` };
}

async function record(em: EntityManager, delivery: WebhookDelivery, attempt: number, startedAt: Date, latencyMs: number | null, outcome: AttemptOutcome, response: unknown): Promise<AttemptOutcome> {
  await em.transactional(async (tx) => {
    await tx.upsert(
      WebhookDeliveryAttempt,
      { company: delivery.company, delivery, attempt, startedAt, statusCode: outcome.statusCode, latencyMs, error: outcome.error },
      { onConflictFields: ['delivery', 'attempt'], onConflictAction: 'merge' },
    );
    // The hold was taken in SQL, past the ORM's view of the row: it is ended the same way.
    await tx.nativeUpdate(WebhookDelivery, { id: delivery.id }, { sendingUntil: null });
    const row = await tx.findOneOrFail(WebhookDelivery, { id: delivery.id });
    row.attempts = Math.max(row.attempts, attempt);
    row.lastStatusCode = outcome.statusCode;
    row.receiverResponse = response;
    row.status = outcome.outcome === 'retry' ? 'delivering' : outcome.outcome;
    if (outcome.outcome === 'delivered') row.deliveredAt = new Date();
    if (delivery.event === 'document.accounted' && outcome.outcome !== 'retry') await recordRegistration(tx, row, outcome, response);
  });
  return outcome;
}

/** What the ERP answered to `document.accounted`, on the voucher, the document's erp_document, and its log. */
async function recordRegistration(em: EntityManager, delivery: WebhookDelivery, outcome: AttemptOutcome, response: unknown): Promise<void> {
  const entry = delivery.subjectId ? await em.findOne(AccountingEntry, { id: delivery.subjectId }, { populate: ['document'] }) : null;
  if (!entry) return;
  const document = entry.document;
  const answer = (response ?? {}) as { erp_invoice_id?: string; invoice_reference?: string | null; error?: { code?: string; message?: string } };
  if (outcome.outcome === 'delivered') {
    entry.registrationState = 'registered';
    entry.failureCode = null;
    entry.failureMessage = null;
    await em.upsert(
      ErpDocument,
      { company: entry.company, document, registered: true, erpInvoiceId: answer.erp_invoice_id ?? null, invoiceReference: answer.invoice_reference ?? null, registeredAt: new Date(), data: (delivery.payload.data as Record<string, unknown>) ?? null },
      { onConflictFields: ['document'], onConflictAction: 'merge' },
    );
  } else {
    entry.registrationState = 'failed';
    entry.failureCode = outcome.outcome === 'rejected' ? (answer.error?.code ?? 'rejected') : 'delivery_failed';
    entry.failureMessage = outcome.error;
  }
  em.create(ActivityLog, {
    company: entry.company,
    document,
    event: 'document.updated',
    actor: { type: 'system', source: 'erp' },
    metadata:
      outcome.outcome === 'delivered'
        ? { change: 'erp_registered', accounting_entry: entry.id, erp_invoice_id: answer.erp_invoice_id, invoice_reference: answer.invoice_reference ?? null, crossed: entry.isCrossed }
        : { change: 'erp_registration_failed', accounting_entry: entry.id, code: entry.failureCode, message: entry.failureMessage },
  });
}

/** Marks a delivery failed once its attempts are exhausted. */
export async function giveUpDelivery(orm: Orm, input: { companyId: string; deliveryId: string; error: string | null }): Promise<void> {
  const em = companyEm(orm, input.companyId);
  await em.transactional(async (tx) => {
    const delivery = await tx.findOneOrFail(WebhookDelivery, { id: input.deliveryId });
    if (delivery.status === 'delivered' || delivery.status === 'rejected') return;
    delivery.status = 'failed';
    if (delivery.event === 'document.accounted') await recordRegistration(tx, delivery, { event: delivery.event, outcome: 'failed', statusCode: delivery.lastStatusCode ?? null, error: input.error }, null);
  });
}

function parseJson(text: string): unknown {
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** Receivers are reached over https at public addresses; http to loopback is only for development. */
async function unsafeTarget(url: string, environment: DeliveryDeps['environment']): Promise<string | null> {
  const target = new URL(url);
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname);
  if (environment === 'development' && loopback) return null;
  if (target.protocol !== 'https:') return 'Receivers must use https';
  if (await pointsOutsidePublicInternet(target)) return 'The receiver resolves to a private, loopback or link-local address';
  return null;
}
