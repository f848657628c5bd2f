import { uuidv7 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import { ReceptionEvent, type ClaimCode, type ReceptionEventType } from './reception-event.entity.ts';

export interface ReceptionEventRequest {
  documentId: string;
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
  toRun: QueuedReceptionEvent[];
  created: number;
  resubmitted: number;
  alreadyProcessing: number;
  alreadyAccepted: number;
}

/**
 * Persists requested events as `processing` in one statement: new ones are inserted, rejected or failed ones start a
 * new round (a resend submits again), accepted and processing ones are left as they are. Columns travel as arrays, a
 * statement of the same shape for any batch instead of a row of placeholders per event.
 */
export async function queueReceptionEvents(em: EntityManager, companyId: string, requests: ReceptionEventRequest[]): Promise<QueueOutcome> {
  const unique = [...new Map(requests.map((request) => [`${request.documentId}/${request.eventType}`, request])).values()];
  if (unique.length === 0) return { toRun: [], created: 0, resubmitted: 0, alreadyProcessing: 0, alreadyAccepted: 0 };
  const column = <T>(pick: (request: ReceptionEventRequest) => T) => unique.map(pick);
  const rows = await runStatement<{ id: string; document_id: string; event_type: ReceptionEventType; round: number; inserted: boolean }>(
    em,
    `insert into "reception_events" ("id", "company_id", "document_id", "cufe", "event_type", "status", "response_code_list_id", "description_claim", "attempts", "round", "created_at", "updated_at")
     select r.id, :companyId, r.document_id, r.cufe, r.event_type, 'processing', nullif(r.claim_code, ''), nullif(r.claim_description, ''), 0, 1, now(), now()
     from unnest(array[:ids]::uuid[], array[:documentIds]::uuid[], array[:cufes]::text[], array[:eventTypes]::reception_event_type[], array[:claimCodes]::text[], array[:claimDescriptions]::text[]) as r(id, document_id, cufe, event_type, claim_code, claim_description)
     on conflict ("company_id", "document_id", "event_type") do update set
       "status" = 'processing', "round" = "reception_events"."round" + 1, "message" = null, "dian_response" = null,
       "issue_date" = null, "attempts" = 0, "submitted_at" = null, "completed_at" = null, "updated_at" = excluded."updated_at",
       "response_code_list_id" = excluded."response_code_list_id", "description_claim" = excluded."description_claim"
     where "reception_events"."status" in ('rejected', 'failed')
     returning "id", "document_id", "event_type", "round", (xmax = 0) as "inserted"`,
    {
      companyId,
      ids: column(() => uuidv7()),
      documentIds: column((request) => request.documentId),
      cufes: column((request) => request.cufe),
      eventTypes: column((request) => request.eventType),
      // '' stands for no claim (never a valid code or description): inside a transaction the ORM writes the arrays
      // into the SQL text, and its formatter cannot write nulls in an array.
      claimCodes: column((request) => request.claim?.code ?? ''),
      claimDescriptions: column((request) => request.claim?.description ?? ''),
    },
  );
  const byKey = new Map(unique.map((request) => [`${request.documentId}/${request.eventType}`, request]));
  const written = new Set(rows.map((row) => `${row.document_id}/${row.event_type}`));
  const toRun: QueuedReceptionEvent[] = rows.map((row) => ({
    id: row.id,
    documentId: row.document_id,
    cufe: byKey.get(`${row.document_id}/${row.event_type}`)!.cufe,
    eventType: row.event_type,
    round: row.round,
    resubmitted: !row.inserted,
  }));
  const created = toRun.filter((event) => !event.resubmitted).length;
  let alreadyProcessing = 0;
  let alreadyAccepted = 0;
  if (written.size < unique.length) {
    // The rest existed and were left alone: accepted ones need nothing; processing ones keep (or regain) their workflow.
    const existing = await em.find(
      ReceptionEvent,
      { document: { $in: [...new Set(unique.map((request) => request.documentId))] }, eventType: { $in: [...new Set(unique.map((request) => request.eventType))] } },
      { fields: ['id', 'document', 'eventType', 'status', 'round', 'cufe'] },
    );
    for (const event of existing) {
      const key = `${event.document.id}/${event.eventType}`;
      if (!byKey.has(key) || written.has(key)) continue;
      if (event.status === 'accepted') alreadyAccepted++;
      else {
        alreadyProcessing++;
        toRun.push({ id: event.id, documentId: event.document.id, cufe: event.cufe, eventType: event.eventType, round: event.round, resubmitted: false });
      }
    }
  }
  return { toRun, created, resubmitted: rows.length - created, alreadyProcessing, alreadyAccepted };
}

/** The batch's events by id, as the batch's workflow hands them on: those of another company are never found. */
export async function queuedReceptionEvents(em: EntityManager, companyId: string, ids: readonly string[], resubmittedIds: readonly string[]): Promise<QueuedReceptionEvent[]> {
  const resubmitted = new Set(resubmittedIds);
  const rows = await runStatement<{ id: string; document_id: string; cufe: string; event_type: ReceptionEventType; round: number }>(
    em,
    `select "id", "document_id", "cufe", "event_type", "round" from "reception_events" where "company_id" = :companyId and "id" = any(array[:ids]::uuid[])`,
    { companyId, ids: [...ids] },
  );
  return rows.map((row) => ({ id: row.id, documentId: row.document_id, cufe: row.cufe, eventType: row.event_type, round: row.round, resubmitted: resubmitted.has(row.id) }));
}
