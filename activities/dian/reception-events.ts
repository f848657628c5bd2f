import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import { companyEm, type EntityManager } from '../../db/orm.ts';
import { ReceptionEvent, type ReceptionEventStatus, type ReceptionEventType } from '../../db/reception-events/reception-event.entity.ts';
import { queuedReceptionEvents } from '../../db/reception-events/reception-event.repository.ts';
import { checkRadianOrder, resolvedAfter } from '../../fiscal/radian-rules.ts';
import { startReceptionEvents, wakeReceptionEvent } from '../../worker/reception-events.ts';
import type { ReceptionEventBatchInput, ReceptionEventTiming } from '../../workflows/reception-event.ts';
import type { ActivityDeps } from '../index.ts';
import { applicationResponse, bareNit, DIAN_NIT } from './application-response.ts';
import { sendEventUpdateStatus } from './dian-client.ts';

/** Which event and which submission round a workflow run serves. */
export interface ReceptionEventSubject {
  companyId: string;
  eventId: string;
  round: number;
  /** The run's pacing, for starting a later event of the document that this one wakes. */
  timing: ReceptionEventTiming;
}

/** The final state (or `superseded`: a resend started a newer round, which this run leaves alone). */
export type ReceptionEventOutcome = ReceptionEventStatus | 'superseded';

/** Where the event stands for the workflow: to wait for an earlier event of its document, or done. */
export type ReceptionEventStep = { action: 'wait'; waitingFor: ReceptionEventType[] } | { action: 'done'; status: ReceptionEventOutcome };

type Deps = Pick<ActivityDeps, 'orm' | 'outside' | 'environment' | 'temporal'>;

/** The row this run serves, or null when a resend has started a newer round. */
async function current(em: EntityManager, subject: ReceptionEventSubject, populate: ('document' | 'document.beneficiary' | 'company')[] = ['document']) {
  const event = await em.findOne(ReceptionEvent, { id: subject.eventId }, { populate });
  return event && event.round === subject.round ? event : null;
}

/**
 * Wakes the next event of the same document still processing, which may be waiting for this one. Only the next: when
 * it is final it wakes the one after it, so each waiting event is woken once. Best effort: its own timer covers a miss.
 */
async function wakeNext(deps: Deps, em: EntityManager, event: ReceptionEvent, timing: ReceptionEventTiming): Promise<void> {
  const later = resolvedAfter(event.eventType);
  const waiting = await em.find(ReceptionEvent, { document: event.document.id, status: 'processing', eventType: { $in: later } }, { fields: ['id', 'eventType', 'round'] });
  const next = later.map((eventType) => waiting.find((sibling) => sibling.eventType === eventType)).find(Boolean);
  if (!next) return;
  const sibling = { id: next.id, documentId: event.document.id, cufe: event.cufe, eventType: next.eventType, round: next.round };
  await wakeReceptionEvent(deps.temporal, event.company.id, sibling, timing).catch(() => undefined);
}

/** Writes the final state, only if this round is still the row's and still processing; a retried activity writes it once. */
async function finish(deps: Deps, em: EntityManager, event: ReceptionEvent, subject: ReceptionEventSubject, final: { status: Exclude<ReceptionEventStatus, 'processing'>; message: string | null; dianResponse: Record<string, unknown> | null; issueDate: Date | null }): Promise<ReceptionEventOutcome> {
  const now = new Date();
  const written = await em.nativeUpdate(ReceptionEvent, { id: subject.eventId, round: subject.round, status: 'processing' }, { ...final, completedAt: now, updatedAt: now });
  if (written === 0) {
    const fresh = await em.fork().findOne(ReceptionEvent, { id: subject.eventId }, { fields: ['status', 'round'] });
    return fresh && fresh.round === subject.round ? fresh.status : 'superseded';
  }
  await wakeNext(deps, em, event, subject.timing);
  return final.status;
}

/** The ApplicationResponse of an event: sent by the company (the buyer) to the seller, or to DIAN for a tacit acceptance. */
function renditionOf(event: ReceptionEvent, credential: FiscalCredential | null, signedAt: Date, environment: Deps['environment']) {
  const { company, document } = event;
  const representative = credential?.dianLegalRepresentative?.trim().split(/\s+/) ?? [];
  return applicationResponse({
    eventCode: event.eventType,
    eventNumber: `${event.eventType}-${event.id.replaceAll('-', '')}-${event.round}`,
    signedAt,
    profileExecutionId: environment === 'production' ? '1' : '2',
    sender: { name: company.name, nit: bareNit(credential?.dianNit ?? company.taxId) },
    // DIAN expects 034 from the seller; the spec lets the buyer send it, and DIAN decides what it makes of ours.
    receiver: event.eventType === '034' ? { name: 'Unidad Especial Dirección de Impuestos y Aduanas Nacionales', nit: DIAN_NIT } : { name: document.beneficiary?.name ?? '', nit: bareNit(document.beneficiary?.identifierNumber) },
    invoice: { number: document.documentNumber, cufe: event.cufe },
    claim: event.eventType === '031' && event.responseCodeListId ? { code: event.responseCodeListId, description: event.descriptionClaim ?? '' } : null,
    person: representative.length ? { firstName: representative[0]!, familyName: representative.slice(1).join(' '), jobTitle: 'Representante legal' } : null,
  });
}

/**
 * Takes the event as far as it can go now. Right before submission it checks DIAN's ordering rules against the read
 * state: an earlier event of the document still processing means wait; a broken rule is recorded as a rejection, never
 * sent. Otherwise it sends the event and records DIAN's answer: accepted (with DIAN's registration time) or rejected
 * with DIAN's reasons. Transient failures are thrown, for Temporal to retry with back-off; business rejections are not.
 */
export async function advanceReceptionEvent(deps: Deps, subject: ReceptionEventSubject): Promise<ReceptionEventStep> {
  const em = companyEm(deps.orm, subject.companyId);
  const event = await current(em, subject, ['document', 'document.beneficiary', 'company']);
  if (!event) return { action: 'done', status: 'superseded' };
  if (event.status !== 'processing') {
    await wakeNext(deps, em, event, subject.timing);
    return { action: 'done', status: event.status };
  }

  const document = event.document;
  const others = await em.find(ReceptionEvent, { document: document.id, id: { $ne: event.id } });
  const signedAt = new Date();
  const verdict = checkRadianOrder({
    eventType: event.eventType,
    invoice: { type: document.type, issueDate: document.issueDate ?? null, isCanceled: document.isCanceled },
    others: others.map((other) => ({ eventType: other.eventType, status: other.status, registeredAt: other.issueDate ?? other.completedAt ?? null })),
    signingTime: signedAt,
  });
  if (verdict.kind === 'wait') return { action: 'wait', waitingFor: verdict.on };
  if (verdict.kind === 'reject') {
    return { action: 'done', status: await finish(deps, em, event, subject, { status: 'rejected', message: verdict.reason, dianResponse: { source: 'ordering_rules', rule: verdict.rule }, issueDate: null }) };
  }

  const credential = await em.findOne(FiscalCredential, { company: event.company.id });
  const rendition = renditionOf(event, credential, signedAt, deps.environment);
  await em.execute(`update reception_events set attempts = attempts + 1, submitted_at = ?, updated_at = ? where id = ? and round = ? and status = 'processing'`, [signedAt, signedAt, event.id, subject.round]);
  const answer = await sendEventUpdateStatus(deps.outside.dianUrl, rendition);
  const dianResponse = { source: 'dian', cude: rendition.ApplicationResponse.UUID.value, answer: answer.raw };
  const status = answer.accepted || answer.alreadyRegistered
    ? await finish(deps, em, event, subject, { status: 'accepted', message: null, dianResponse, issueDate: answer.registeredAt ?? new Date() })
    : await finish(deps, em, event, subject, { status: 'rejected', message: answer.errors.join('; '), dianResponse, issueDate: null });
  return { action: 'done', status };
}

/** Records that the event could not be submitted (DIAN unreachable after every retry, or a wait that never ended). */
export async function failReceptionEvent(deps: Deps, input: ReceptionEventSubject & { reason: string }): Promise<ReceptionEventOutcome> {
  const em = companyEm(deps.orm, input.companyId);
  const event = await current(em, input);
  if (!event) return 'superseded';
  if (event.status !== 'processing') return event.status;
  return finish(deps, em, event, input, { status: 'failed', message: input.reason, dianResponse: null, issueDate: null });
}

/** Starts (or finds running) the workflow of each event of a batch, read back by id (a batch started before ids carries them). */
export async function startBatchWorkflows(deps: Deps, input: ReceptionEventBatchInput): Promise<void> {
  const events = input.events ?? (await queuedReceptionEvents(companyEm(deps.orm, input.companyId), input.companyId, input.eventIds ?? [], input.resubmittedIds ?? []));
  await startReceptionEvents(deps.temporal, input.companyId, events, input.timing);
}
