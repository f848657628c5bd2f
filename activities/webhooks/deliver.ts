import { AccountingEntry } from '../../db/accounting/accounting-entry.entity.ts';
import { ErpDocument } from '../../db/accounting/erp-document.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { claimDelivery, FINAL_DELIVERY_STATUSES, recordAttempt, type AttemptRecord, type DeliveryToSend } from '../../db/webhooks/webhook-delivery.repository.ts';
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
  const delivery = await claimDelivery(em, input.companyId, input.deliveryId, HOLD_MARGIN_SECONDS);
  if (!delivery) throw new Error(`Delivery ${input.deliveryId} does not exist`);
  // A retried activity whose first run already finished the delivery must not send it again.
  if (FINAL_DELIVERY_STATUSES.includes(delivery.status)) return { event: delivery.event, outcome: delivery.status as AttemptOutcome['outcome'], statusCode: delivery.lastStatusCode, error: null };
  if (!delivery.held) throw new DeliveryInFlight(delivery.id);
  const attempt = { companyId: input.companyId, deliveryId: delivery.id, attempt: input.attempt };
  const refusal = await unsafeTarget(delivery.url, deps.environment);
  if (refusal) return record(em, delivery, { ...attempt, startedAt: new Date(), latencyMs: null }, { event: delivery.event, outcome: 'failed', statusCode: null, error: refusal }, null);

  const startedAt = new Date();
  const started = performance.now();
  let statusCode: number | null = null;
  let text = '';
  let error: string | null = null;
  try {
    const response = await fetch(delivery.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(delivery.timeoutSeconds * 1000),
      headers: {
        ...delivery.headers,
        'content-type': 'application/json',
        'user-agent': 'accounts-payable-webhooks/1',
        [WEBHOOK_HEADERS.signature]: signBody(deps.secrets.open(delivery.secretCiphertext), delivery.body),
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
    error = cause.name === 'TimeoutError' ? `No answer within ${delivery.timeoutSeconds} s` : `${cause.message}${cause.cause ? `: ${(cause.cause as Error).message}` : ''}`;
  }
  const latencyMs = Math.round(performance.now() - started);
  const json = parseJson(text);
  const outcome = { event: delivery.event, ...(delivery.event === 'document.accounted' ? accountedOutcome(statusCode, json, error) : plainOutcome(statusCode, error)) };
  return record(em, delivery, { ...attempt, startedAt, latencyMs }, outcome, json ?? (text ? { raw: text.slice(0, 2000) } : null));
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

/** Records the attempt and ends its hold; a final `document.accounted` also records the registration, in the same transaction. */
async function record(em: EntityManager, delivery: DeliveryToSend, attempt: Omit<AttemptRecord, 'statusCode' | 'error' | 'status' | 'response'>, outcome: AttemptOutcome, response: unknown): Promise<AttemptOutcome> {
  const written: AttemptRecord = { ...attempt, statusCode: outcome.statusCode, error: outcome.error, status: outcome.outcome === 'retry' ? 'delivering' : outcome.outcome, response };
  if (delivery.event !== 'document.accounted' || outcome.outcome === 'retry') {
    await recordAttempt(em, written);
    return outcome;
  }
  await em.transactional(async (tx) => {
    await recordAttempt(tx, written);
    await recordRegistration(tx, await tx.findOneOrFail(WebhookDelivery, { id: delivery.id }), outcome, response);
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
