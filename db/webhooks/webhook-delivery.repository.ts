import { uuidv7 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement, type Transaction } from '../prepared.ts';
import type { DeliveryStatus, WebhookDelivery } from './webhook-delivery.entity.ts';
import { WebhookSubscription, type WebhookEvent } from './webhook-subscription.entity.ts';

/** A delivery as an attempt sends it: its bytes and its subscription's endpoint. */
export interface DeliveryToSend {
  id: string;
  event: WebhookEvent;
  status: DeliveryStatus;
  body: string;
  lastStatusCode: number | null;
  url: string;
  headers: Record<string, string>;
  secretCiphertext: string;
  timeoutSeconds: number;
  /** This attempt holds the delivery for one send; false when it is final or another run holds it. */
  held: boolean;
}

export const FINAL_DELIVERY_STATUSES: readonly DeliveryStatus[] = ['delivered', 'rejected', 'failed'];

/**
 * Reads a delivery for an attempt and, unless it is final or another run holds it, holds it for one send: until the
 * subscription's timeout plus `marginSeconds` from now. One statement, as every delivery goes through it.
 */
export async function claimDelivery(
  em: EntityManager,
  companyId: string,
  deliveryId: string,
  marginSeconds: number,
): Promise<DeliveryToSend | null> {
  const [row] = await runStatement<{
    id: string;
    event: WebhookEvent;
    status: DeliveryStatus;
    body: string;
    last_status_code: number | null;
    url: string;
    headers: Record<string, string>;
    secret_ciphertext: string;
    timeout_seconds: number;
    held: boolean;
  }>(
    em,
    `with "held" as (
       update "webhook_deliveries" as d set "sending_until" = now() + make_interval(secs => s."timeout_seconds" + :marginSeconds)
       from "webhook_subscriptions" as s
       where d."id" = :deliveryId and d."company_id" = :companyId and s."id" = d."subscription_id"
         and d."status" not in ('delivered', 'rejected', 'failed') and (d."sending_until" is null or d."sending_until" < now())
       returning d."id"
     )
     select d."id", d."event", d."status", d."body", d."last_status_code", s."url", s."headers", s."secret_ciphertext", s."timeout_seconds", exists (select from "held") as "held"
     from "webhook_deliveries" as d join "webhook_subscriptions" as s on s."id" = d."subscription_id" and s."company_id" = d."company_id"
     where d."id" = :deliveryId and d."company_id" = :companyId`,
    { deliveryId, companyId, marginSeconds },
  );
  if (!row) return null;
  return {
    id: row.id,
    event: row.event,
    status: row.status,
    body: row.body,
    lastStatusCode: row.last_status_code,
    url: row.url,
    headers: row.headers,
    secretCiphertext: row.secret_ciphertext,
    timeoutSeconds: row.timeout_seconds,
    held: row.held,
  };
}

export interface AttemptRecord {
  companyId: string;
  deliveryId: string;
  attempt: number;
  startedAt: Date;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  /** What the delivery becomes: `delivering` while attempts remain. */
  status: DeliveryStatus;
  /** The receiver's answer as kept for operators. */
  response: unknown;
}

/** Records one attempt (again, if it ran twice), updates its delivery and ends the attempt's hold, in one statement. */
export async function recordAttempt(em: EntityManager, record: AttemptRecord): Promise<void> {
  await runStatement(
    em,
    `with "attempt" as (
       insert into "webhook_delivery_attempts" ("id", "company_id", "delivery_id", "attempt", "started_at", "status_code", "latency_ms", "error")
       values (:id, :companyId, :deliveryId, :attempt, :startedAt, :statusCode, :latencyMs, :error)
       on conflict ("delivery_id", "attempt") do update set
         "started_at" = excluded."started_at", "status_code" = excluded."status_code", "latency_ms" = excluded."latency_ms", "error" = excluded."error"
     )
     update "webhook_deliveries" set
       "sending_until" = null, "attempts" = greatest("attempts", :attempt), "last_status_code" = :statusCode,
       "receiver_response" = :response::jsonb, "status" = :status::delivery_status, "updated_at" = now(),
       "delivered_at" = case when :status::delivery_status = 'delivered' then now() else "delivered_at" end
     where "id" = :deliveryId and "company_id" = :companyId`,
    {
      id: uuidv7(),
      companyId: record.companyId,
      deliveryId: record.deliveryId,
      attempt: record.attempt,
      startedAt: record.startedAt,
      statusCode: record.statusCode,
      latencyMs: record.latencyMs,
      error: record.error,
      response: record.response === null || record.response === undefined ? null : JSON.stringify(record.response),
      status: record.status,
    },
  );
}

/** A subscription to an event, as a delivery of it is recorded. */
export interface Subscriber {
  id: string;
  retries: number;
  timeoutSeconds: number;
}

/** A recorded delivery as the process that sends it is started with it: a row of the ORM's, or one written here. */
export type DeliveryToStart = Pick<WebhookDelivery, 'id' | 'eventId' | 'event' | 'attempts' | 'payload'> & {
  company: { id: string };
  subscription: Subscriber;
};

/** The company's active subscriptions to an event (the EntityManager is the company's). */
export async function activeSubscribers(em: EntityManager, event: WebhookEvent): Promise<Subscriber[]> {
  const subscriptions = await em.find(WebhookSubscription, { event, isActive: true });
  return subscriptions.map(({ id, retries, timeoutSeconds }) => ({ id, retries, timeoutSeconds }));
}

/**
 * Records one event for each of its subscribers in the caller's transaction (an ORM one, or a `Transaction`), with
 * one body: every attempt of every delivery sends these bytes.
 */
export async function insertDeliveries(
  on: EntityManager | Transaction,
  event: { companyId: string; event: WebhookEvent; subjectId: string | null; payload: Record<string, unknown> },
  subscribers: readonly Subscriber[],
): Promise<DeliveryToStart[]> {
  const eventId = uuidv7();
  const deliveries = subscribers.map((subscription) => ({ id: uuidv7(), subscription }));
  const body = JSON.stringify(event.payload);
  await runStatement(
    on,
    `insert into "webhook_deliveries" ("id", "company_id", "subscription_id", "event_id", "event", "subject_id",
       "payload", "body", "created_at", "updated_at")
     select d."id", :companyId, d."subscriptionId", :eventId, cast(:event as webhook_event), :subjectId,
       cast(:body as jsonb), :body, now(), now()
     from jsonb_to_recordset(cast(:deliveries as jsonb)) as d("id" uuid, "subscriptionId" uuid)`,
    {
      companyId: event.companyId,
      eventId,
      event: event.event,
      subjectId: event.subjectId,
      body,
      deliveries: JSON.stringify(deliveries.map(({ id, subscription }) => ({ id, subscriptionId: subscription.id }))),
    },
  );
  return deliveries.map(({ id, subscription }) => ({
    id,
    eventId,
    event: event.event,
    attempts: 0,
    payload: event.payload,
    company: { id: event.companyId },
    subscription,
  }));
}
