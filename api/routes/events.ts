import type { Context } from 'koa';
import { queueReceptionEvents, type QueueOutcome } from '../../db/reception-events/reception-event.repository.ts';
import type { ReceptionEventType } from '../../db/reception-events/reception-event.entity.ts';
import { DEFAULT_RECEPTION_EVENT_TIMING } from '../../temporal/timings.ts';
import { startReceptionEventBatch } from '../../temporal/reception-events.ts';
import type { AppDeps } from '../deps.ts';
import { Refusal } from '../../platform/refusal.ts';
import { refusals } from '../refusals.ts';
import { defineRoute, type Caller } from '../route.ts';
import { BatchEventsRequest, BatchEventsResponse, SingleEventRequest, SingleEventResponse } from '../schemas/events.ts';

const NOT_FOUND = {
  document_not_found: [
    'no document of the company has this CUFE',
    '(in a batch: none of them matches one; they are listed in `documents_fiscal_reference`, and nothing is queued)',
  ].join(' '),
};

const ASYNCHRONOUS = [
  'The answer means persisted as `processing` and queued, not accepted by DIAN;',
  'it needs only the database, so events are accepted while the workflow engine is unreachable and are submitted once it is back.',
  'Before submission the RADIAN ordering rules are checked against the events already recorded',
  '(030 before 032; 031 and 033 within 3 Colombian business days after the 032; 034 only after them; a claim and an acceptance exclude each other);',
  'an event that breaks them is recorded as `rejected` with the reason and never sent.',
  'So is a 030 or 032 while the company has no person registered to name as the one who receives for it',
  '(DIAN requires that person in those two events; an operator registers it, then the event can be sent again).',
  'Events of one document queued together are resolved in the order 030, 032, 031, 033, 034.',
  'The final state (`accepted`, `rejected` with its reason, or `failed` after retries) is visible in GET /documents with `fields=invoice_reception_events`.',
  'Sending an event again: accepted or processing, nothing changes; rejected or failed, it is submitted again.',
].join(' ');

function requireColombia(caller: Caller): void {
  if (caller.company.country !== 'COL')
    throw new Refusal(
      'reception_events_not_supported_for_country',
      'Tax-authority reception events (DIAN RADIAN, 030 to 034) exist only for Colombian companies',
    );
}

const timing = (deps: AppDeps) => deps.config.receptionEvents ?? DEFAULT_RECEPTION_EVENT_TIMING;

/**
 * Starts the batch's workflow once the answer is out: the events and their batch are committed, and the hundreds of
 * workflow starts it sets off would otherwise compete with the answer for the CPU. A batch whose start fails here
 * (Temporal unreachable, or this process gone) is handed over by the sweep.
 */
function handOver(deps: AppDeps, ctx: Context, companyId: string, batchId: string | null): void {
  if (!batchId) return;
  ctx.res.once('close', () => {
    startReceptionEventBatch(deps.temporal, companyId, batchId).catch((error: unknown) =>
      ctx.state.log.warn({ err: error, batchId }, 'reception-event batch not started: the sweep hands it over'),
    );
  });
}

function singleMessage(eventType: ReceptionEventType, outcome: QueueOutcome): string {
  if (outcome.alreadyAccepted) return `Event ${eventType} was already accepted by DIAN; nothing was sent again`;
  if (outcome.alreadyProcessing) return `Event ${eventType} is already being processed; nothing new was queued`;
  if (outcome.resubmitted)
    return `Event ${eventType} was queued again for submission to DIAN (its previous attempt was rejected or failed)`;
  return `Event ${eventType} was queued for submission to DIAN`;
}

/** Tax-authority reception events (Colombia): RADIAN events 030-034 queued for asynchronous submission to DIAN. */
export const eventRoutes = [
  defineRoute({
    method: 'post',
    path: '/events/single',
    operationId: 'sendReceptionEvent',
    summary: 'Send one reception event (030-034) for an invoice, by CUFE',
    description: `A claim (031) needs \`response_code_list_id\` and \`description_claim\`. ${ASYNCHRONOUS}`,
    tags: ['Tax-authority events'],
    auth: 'api-key',
    body: SingleEventRequest,
    response: SingleEventResponse,
    errors: refusals(['document_not_found', 'reception_events_not_supported_for_country'], { descriptions: NOT_FOUND }),
    handler: async ({ em, caller, body, deps, ctx }) => {
      requireColombia(caller);
      const cufe = body.document_fiscal_reference.toLowerCase();
      const claim =
        body.event_type === '031' ? { code: body.response_code_list_id!, description: body.description_claim! } : null;
      const outcome = await queueReceptionEvents(
        em,
        caller.company.id,
        [{ cufe, eventType: body.event_type, claim }],
        timing(deps),
      );
      if (outcome.unknownCufes.length)
        throw new Refusal('document_not_found', 'No document of the company has this CUFE');
      handOver(deps, ctx, caller.company.id, outcome.batchId);
      return {
        document_fiscal_reference: body.document_fiscal_reference,
        message: singleMessage(body.event_type, outcome),
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/events/batch',
    operationId: 'sendReceptionEventsBatch',
    summary: 'Send reception events for many invoices: every event type for every CUFE',
    description:
      'Each (CUFE, event type) pair is its own event, processed independently: one failure never stops the others. ' +
      'The events of every CUFE the company has are queued; the CUFEs that match none of its documents are left out and ' +
      'named in `unknown_documents_fiscal_reference`. Only when none matches is the answer 404, listing them. ' +
      ASYNCHRONOUS,
    tags: ['Tax-authority events'],
    auth: 'api-key',
    body: BatchEventsRequest,
    response: BatchEventsResponse,
    errors: refusals(
      ['document_not_found', 'claim_not_allowed_in_batch', 'reception_events_not_supported_for_country'],
      {
        descriptions: NOT_FOUND,
      },
    ),
    handler: async ({ em, caller, body, deps, ctx }) => {
      requireColombia(caller);
      if (body.events_type.includes('031'))
        throw new Refusal(
          'claim_not_allowed_in_batch',
          'A claim (031) cannot be sent in a batch: send it through POST /events/single with its concept and description',
        );
      const cufes = [...new Map(body.documents_fiscal_reference.map((cufe) => [cufe.toLowerCase(), cufe])).entries()];
      const eventTypes = [...new Set(body.events_type)];
      const requests = cufes.flatMap(([cufe]) => eventTypes.map((eventType) => ({ cufe, eventType, claim: null })));
      const outcome = await queueReceptionEvents(em, caller.company.id, requests, timing(deps));
      const unknown = new Set(outcome.unknownCufes);
      const [missing, found] = [
        cufes.filter(([cufe]) => unknown.has(cufe)).map(([, as]) => as),
        cufes.filter(([cufe]) => !unknown.has(cufe)).map(([, as]) => as),
      ];
      if (found.length === 0)
        throw new Refusal(
          'document_not_found',
          'None of the CUFEs matches a document of the company; nothing was queued',
          {
            details: { documents_fiscal_reference: missing },
          },
        );
      handOver(deps, ctx, caller.company.id, outcome.batchId);
      const { created, resubmitted, alreadyProcessing, alreadyAccepted } = outcome;
      const events = found.length * eventTypes.length;
      return {
        documents_fiscal_reference: found,
        unknown_documents_fiscal_reference: missing,
        message:
          `${events} events (${found.length} documents × ${eventTypes.length} event types): ${created} queued, ${resubmitted} queued again, ` +
          `${alreadyProcessing} already processing, ${alreadyAccepted} already accepted` +
          (missing.length ? `; ${missing.length} CUFEs match no document of the company and were left out` : ''),
      };
    },
  }),
];
