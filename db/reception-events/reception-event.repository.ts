import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { DocumentType } from '../documents/document.entity.ts';
import { uuidv7 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import type { RadianPerson } from '../../fiscal/radian-person.ts';
import type { ReceptionEventTiming } from './reception-event-batch.entity.ts';
import type { ClaimCode, ReceptionEventStatus, ReceptionEventType } from './reception-event.entity.ts';

export interface ReceptionEventRequest {
  /** The document's CUFE, lowercase. */
  cufe: string;
  eventType: ReceptionEventType;
  claim: { code: ClaimCode; description: string } | null;
}

/** An event whose workflow must run: new, reset for a resend, or already processing (its workflow is ensured). */
export interface QueuedReceptionEvent {
  id: string;
  documentId: string;
  cufe: string;
  eventType: ReceptionEventType;
  round: number;
  /** A rejected or failed event sent again: a new round, replacing whatever run of the old one is still closing. */
  resubmitted: boolean;
}

export interface QueueOutcome {
  /** CUFEs that match no document of the company: their events are not queued; the others' are. */
  unknownCufes: string[];
  /** The batch whose workflow starts the events' own; null when none needs one (all accepted already). */
  batchId: string | null;
  created: number;
  resubmitted: number;
  alreadyProcessing: number;
  alreadyAccepted: number;
}

/**
 * Persists requested events as `processing`, and the batch that hands them to their workflows, in one statement, all
 * or nothing: if a CUFE matches no document of the company, nothing is written and the unknown ones come back. New
 * events are inserted, rejected or failed ones start a new round (a resend submits again), accepted and processing
 * ones are left as they are (a processing one joins the batch, which ensures its workflow). Columns travel as arrays,
 * a statement of the same shape for any batch instead of a row of placeholders per event.
 */
export async function queueReceptionEvents(
  em: EntityManager,
  companyId: string,
  requests: ReceptionEventRequest[],
  timing: ReceptionEventTiming,
): Promise<QueueOutcome> {
  const unique = [...new Map(requests.map((request) => [`${request.cufe}/${request.eventType}`, request])).values()];
  if (unique.length === 0) return NOTHING_QUEUED;
  const params = queueParams(companyId, unique, timing);
  // A batch that loses a race to insert the same event fails on its unique key once the other commits; run again,
  // it finds that event processing.
  for (let attempt = 1; ; attempt++) {
    try {
      const [outcome] = await runStatement<QueueCounts>(em, QUEUE_STATEMENT, params);
      return outcomeOf(outcome!, params.batchId);
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt === MAX_ATTEMPTS) throw error;
    }
  }
}

const MAX_ATTEMPTS = 3;

/** The statement's parameters for distinct requests, each event with its new id. */
export function queueParams(companyId: string, unique: readonly ReceptionEventRequest[], timing: ReceptionEventTiming) {
  const column = <T>(pick: (request: ReceptionEventRequest) => T) => unique.map(pick);
  return {
    companyId,
    batchId: uuidv7(),
    timing: JSON.stringify(timing),
    distinctCufes: [...new Set(column((request) => request.cufe))],
    ids: column(() => uuidv7()),
    cufes: column((request) => request.cufe),
    eventTypes: column((request) => request.eventType),
    claimCodes: column((request) => request.claim?.code ?? null),
    claimDescriptions: column((request) => request.claim?.description ?? null),
  };
}

const NOTHING_QUEUED: QueueOutcome = {
  unknownCufes: [],
  batchId: null,
  created: 0,
  resubmitted: 0,
  alreadyProcessing: 0,
  alreadyAccepted: 0,
};

interface QueueCounts {
  unknown: string[];
  /** The events requested of documents the company has. */
  known: number;
  created: number;
  resubmitted: number;
  already_processing: number;
  batched: boolean;
}

/**
 * The events already recorded are looked up one by one through the unique key (the `limit` keeps the planner from
 * turning the lookup into a scan of the company's events): the statement costs what the batch holds, whatever the
 * company's history, in the custom plans and in the generic one PostgreSQL settles on for a prepared statement after
 * its fifth run on a connection. Every part reads the rows as they were before the statement; the resend re-checks
 * the status of the row it resets, so two batches never start two rounds of one event.
 */
export const QUEUE_STATEMENT = `with requested as (
    select * from unnest(array[:ids]::uuid[], array[:cufes]::text[], array[:eventTypes]::reception_event_type[], array[:claimCodes]::text[], array[:claimDescriptions]::text[])
      as r(id, cufe, event_type, claim_code, claim_description)
  ), found as (
    select "id", "fiscal_reference" from "documents" where "company_id" = :companyId and "fiscal_reference" = any(array[:distinctCufes]::text[])
  ), unknown as (
    select cufe from unnest(array[:distinctCufes]::text[]) as cufe where cufe not in (select "fiscal_reference" from found)
  ), queued as (
    select r.*, f."id" as document_id from requested r join found f on f."fiscal_reference" = r.cufe
  ), existing as (
    select e."id", e."status", q.document_id, q.event_type, q.claim_code, q.claim_description
    from queued q cross join lateral (
      select "id", "status" from "reception_events"
      where "company_id" = :companyId and "document_id" = q.document_id and "event_type" = q.event_type limit 1
    ) e
  ), inserted as (
    insert into "reception_events" ("id", "company_id", "document_id", "cufe", "event_type", "status", "response_code_list_id", "description_claim", "attempts", "round", "created_at", "updated_at")
    select q.id, :companyId, q.document_id, q.cufe, q.event_type, 'processing', q.claim_code, q.claim_description, 0, 1, now(), now()
    from queued q where not exists (select 1 from existing x where x.document_id = q.document_id and x.event_type = q.event_type)
    returning "id"
  ), resubmitted as (
    update "reception_events" e set
      "status" = 'processing', "round" = e."round" + 1, "message" = null, "dian_response" = null, "issue_date" = null,
      "attempts" = 0, "submitted_at" = null, "completed_at" = null, "updated_at" = now(),
      "response_code_list_id" = x.claim_code, "description_claim" = x.claim_description
    from existing x
    where e."id" = any(array(select "id" from existing where "status" in ('rejected', 'failed'))) and e."id" = x."id"
      and e."company_id" = :companyId and e."status" in ('rejected', 'failed')
    returning e."id"
  ), processing as (
    select "id" from existing where "status" = 'processing'
  ), batch as (
    insert into "reception_event_batches" ("id", "company_id", "event_ids", "resubmitted_ids", "timing", "created_at")
    select :batchId, :companyId, array(select "id" from inserted union all select "id" from resubmitted union all select "id" from processing),
      array(select "id" from resubmitted), :timing::jsonb, now()
    where exists (select 1 from inserted) or exists (select 1 from resubmitted) or exists (select 1 from processing)
    returning "id"
  )
  select array(select cufe from unknown) as "unknown", (select count(*) from queued)::int as "known",
    (select count(*) from inserted)::int as "created",
    (select count(*) from resubmitted)::int as "resubmitted", (select count(*) from processing)::int as "already_processing",
    exists (select 1 from batch) as "batched"`;

function outcomeOf(counts: QueueCounts, batchId: string): QueueOutcome {
  const { unknown, known, created, resubmitted, already_processing: alreadyProcessing, batched } = counts;
  return {
    unknownCufes: unknown,
    batchId: batched ? batchId : null,
    created,
    resubmitted,
    alreadyProcessing,
    alreadyAccepted: known - created - resubmitted - alreadyProcessing,
  };
}

/** The batch's events by id, as the batch's workflow hands them on: those of another company are never found. */
export async function queuedReceptionEvents(
  em: EntityManager,
  companyId: string,
  ids: readonly string[],
  resubmittedIds: readonly string[],
): Promise<QueuedReceptionEvent[]> {
  const resubmitted = new Set(resubmittedIds);
  const rows = await runStatement<{
    id: string;
    document_id: string;
    cufe: string;
    event_type: ReceptionEventType;
    round: number;
  }>(
    em,
    `select "id", "document_id", "cufe", "event_type", "round" from "reception_events" where "company_id" = :companyId and "id" = any(array[:ids]::uuid[])`,
    { companyId, ids: [...ids] },
  );
  return rows.map((row) => ({
    id: row.id,
    documentId: row.document_id,
    cufe: row.cufe,
    eventType: row.event_type,
    round: row.round,
    resubmitted: resubmitted.has(row.id),
  }));
}

/** An event with what its submission reads: its document, seller, company, DIAN credentials and the document's other events. */
export interface ReceptionEventForSubmission {
  id: string;
  round: number;
  status: ReceptionEventStatus;
  eventType: ReceptionEventType;
  cufe: string;
  documentId: string;
  claim: { code: string; description: string | null } | null;
  document: { type: DocumentType; issueDate: Date | null; isCanceled: boolean; documentNumber: string };
  seller: { name: string; identifierNumber: string } | null;
  company: { name: string; taxId: string | null };
  /** The company's NIT for DIAN, who receives for it in 030 and 032, and its habilitación test set. */
  credential: { dianNit: string | null; dianEventPerson: RadianPerson | null; dianTestSetId: string | null } | null;
  /** The document's other events: when DIAN registered them (or they were completed), for the ordering rules. */
  others: { eventType: ReceptionEventType; status: ReceptionEventStatus; registeredAt: Date | null }[];
}

/** One statement: every event of a batch goes through it, and the ORM's loading of five entities costs more than the query. */
export async function receptionEventForSubmission(
  em: EntityManager,
  companyId: string,
  eventId: string,
): Promise<ReceptionEventForSubmission | null> {
  const [row] = await runStatement<{
    id: string;
    round: number;
    status: ReceptionEventStatus;
    event_type: ReceptionEventType;
    cufe: string;
    document_id: string;
    response_code_list_id: string | null;
    description_claim: string | null;
    document_type: DocumentType;
    /** ISO 8601 (the driver leaves timestamps as PostgreSQL's text). */
    issue_date: string | null;
    is_canceled: boolean;
    document_number: string;
    seller_name: string | null;
    seller_identifier: string | null;
    company_name: string;
    company_tax_id: string | null;
    has_credential: boolean;
    dian_nit: string | null;
    dian_event_person: RadianPerson | null;
    dian_test_set_id: string | null;
    others: { event_type: ReceptionEventType; status: ReceptionEventStatus; registered_at: string | null }[];
  }>(
    em,
    `select e."id", e."round", e."status", e."event_type", e."cufe", e."document_id", e."response_code_list_id", e."description_claim",
       d."type" as "document_type", to_json(d."issue_date") as "issue_date", d."is_canceled", d."document_number",
       b."name" as "seller_name", b."identifier_number" as "seller_identifier", c."name" as "company_name", c."tax_id" as "company_tax_id",
       f."id" is not null as "has_credential", f."dian_nit", f."dian_event_person", f."dian_test_set_id",
       coalesce((select json_agg(json_build_object('event_type', o."event_type", 'status', o."status", 'registered_at', coalesce(o."issue_date", o."completed_at")))
                 from "reception_events" as o where o."company_id" = e."company_id" and o."document_id" = e."document_id" and o."id" <> e."id"), '[]') as "others"
     from "reception_events" as e
     join "documents" as d on d."id" = e."document_id" and d."company_id" = e."company_id"
     join "companies" as c on c."id" = e."company_id"
     left join "beneficiaries" as b on b."id" = d."beneficiary_id" and b."company_id" = e."company_id"
     left join "fiscal_credentials" as f on f."company_id" = e."company_id"
     where e."id" = :eventId and e."company_id" = :companyId`,
    { eventId, companyId },
  );
  if (!row) return null;
  return {
    id: row.id,
    round: row.round,
    status: row.status,
    eventType: row.event_type,
    cufe: row.cufe,
    documentId: row.document_id,
    claim: row.response_code_list_id ? { code: row.response_code_list_id, description: row.description_claim } : null,
    document: {
      type: row.document_type,
      issueDate: row.issue_date === null ? null : new Date(row.issue_date),
      isCanceled: row.is_canceled,
      documentNumber: row.document_number,
    },
    seller: row.seller_name === null ? null : { name: row.seller_name, identifierNumber: row.seller_identifier ?? '' },
    company: { name: row.company_name, taxId: row.company_tax_id },
    credential: row.has_credential
      ? { dianNit: row.dian_nit, dianEventPerson: row.dian_event_person, dianTestSetId: row.dian_test_set_id }
      : null,
    others: row.others.map((other) => ({
      eventType: other.event_type,
      status: other.status,
      registeredAt: other.registered_at === null ? null : new Date(other.registered_at),
    })),
  };
}

/** Counts a submission of the event's round before it is sent (a crash mid-send still counts it). */
export async function countSubmission(
  em: EntityManager,
  companyId: string,
  eventId: string,
  round: number,
  submittedAt: Date,
): Promise<void> {
  await runStatement(
    em,
    `update "reception_events" set "attempts" = "attempts" + 1, "submitted_at" = :submittedAt, "updated_at" = :submittedAt
     where "id" = :eventId and "company_id" = :companyId and "round" = :round and "status" = 'processing'`,
    { eventId, companyId, round, submittedAt },
  );
}

export interface ReceptionEventFinal {
  status: Exclude<ReceptionEventStatus, 'processing'>;
  message: string | null;
  dianResponse: Record<string, unknown> | null;
  issueDate: Date | null;
}

/** Writes an event's final state if its round is still the row's and still processing; whether it wrote. */
export async function recordFinalState(
  em: EntityManager,
  companyId: string,
  eventId: string,
  round: number,
  final: ReceptionEventFinal,
  at: Date,
): Promise<boolean> {
  const rows = await runStatement<{ id: string }>(
    em,
    `update "reception_events" set "status" = :status::reception_event_status, "message" = :message, "dian_response" = :dianResponse::jsonb,
       "issue_date" = :issueDate, "completed_at" = :at, "updated_at" = :at
     where "id" = :eventId and "company_id" = :companyId and "round" = :round and "status" = 'processing'
     returning "id"`,
    {
      eventId,
      companyId,
      round,
      at,
      status: final.status,
      message: final.message,
      dianResponse: final.dianResponse === null ? null : JSON.stringify(final.dianResponse),
      issueDate: final.issueDate,
    },
  );
  return rows.length === 1;
}

/** The first of `types` (in that order) among the document's events still processing: the one to wake next. */
export async function nextProcessingEvent(
  em: EntityManager,
  companyId: string,
  documentId: string,
  types: readonly ReceptionEventType[],
): Promise<{ id: string; eventType: ReceptionEventType; round: number } | null> {
  if (types.length === 0) return null;
  const [row] = await runStatement<{ id: string; event_type: ReceptionEventType; round: number }>(
    em,
    `select "id", "event_type", "round" from "reception_events"
     where "company_id" = :companyId and "document_id" = :documentId and "status" = 'processing' and "event_type" = any(array[:types]::reception_event_type[])
     order by array_position(array[:types]::reception_event_type[], "event_type") limit 1`,
    { companyId, documentId, types: [...types] },
  );
  return row ? { id: row.id, eventType: row.event_type, round: row.round } : null;
}

/** A batch still to be handed to its workflows: its events, those of them resubmitted, and the pacing they run with. */
export interface PendingReceptionEventBatch {
  eventIds: string[];
  resubmittedIds: string[];
  timing: ReceptionEventTiming;
}

export async function pendingReceptionEventBatch(
  em: EntityManager,
  companyId: string,
  batchId: string,
): Promise<PendingReceptionEventBatch | null> {
  const [row] = await runStatement<{ event_ids: string[]; resubmitted_ids: string[]; timing: ReceptionEventTiming }>(
    em,
    'select "event_ids", "resubmitted_ids", "timing" from "reception_event_batches" where "company_id" = :companyId and "id" = :batchId',
    { companyId, batchId },
  );
  return row ? { eventIds: row.event_ids, resubmittedIds: row.resubmitted_ids, timing: row.timing } : null;
}

/** Once every event of the batch has its workflow, the batch is done with. */
export async function removeReceptionEventBatch(em: EntityManager, companyId: string, batchId: string): Promise<void> {
  await runStatement(em, 'delete from "reception_event_batches" where "company_id" = :companyId and "id" = :batchId', {
    companyId,
    batchId,
  });
}

/** Batches queued before `before` and still pending, of any company, oldest first: those whose hand-over never happened. */
export async function strandedReceptionEventBatches(
  em: EntityManager,
  before: Date,
  limit: number,
): Promise<{ id: string; companyId: string }[]> {
  const rows = await runStatement<{ id: string; company_id: string }>(
    em,
    'select "id", "company_id" from "reception_event_batches" where "created_at" < :before order by "created_at" limit :limit',
    { before, limit },
  );
  return rows.map((row) => ({ id: row.id, companyId: row.company_id }));
}
