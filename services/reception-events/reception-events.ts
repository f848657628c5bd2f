import { companyEm, systemEm, type EntityManager } from '../../db/orm.ts';
import type { ReceptionEventStatus, ReceptionEventType } from '../../db/reception-events/reception-event.entity.ts';
import {
  countSubmission,
  nextProcessingEvent,
  pendingReceptionEventBatch,
  queuedReceptionEvents,
  receptionEventForSubmission,
  recordFinalState,
  removeReceptionEventBatch,
  strandedReceptionEventBatches,
  type ReceptionEventFinal,
  type ReceptionEventForSubmission,
} from '../../db/reception-events/reception-event.repository.ts';
import { carriesPerson, missingPersonFields } from '../../fiscal/radian-person.ts';
import { checkRadianOrder, resolvedAfter } from '../../fiscal/radian-rules.ts';
import type { ReceptionEventTiming } from '../../db/reception-events/reception-event-batch.entity.ts';
import type { Logger } from 'pino';
import type { Orm } from '../../db/orm.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { checkSigningCertificate, CertificateRefused, describeCertificate } from '../dian/certificate.ts';
import { companyNit, signingIdentityOf } from '../dian/certificates.ts';
import { sendEvent } from '../dian/client.ts';
import { profileExecutionId, type DianSettings } from '../dian/settings.ts';
import { signUblDocument } from '../dian/xades.ts';
import type { Processes } from '../processes.ts';
import { applicationResponse, bareNit, DIAN_NIT } from './application-response.ts';

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
export type ReceptionEventStep =
  { action: 'wait'; waitingFor: ReceptionEventType[] } | { action: 'done'; status: ReceptionEventOutcome };

export interface ReceptionEventDeps {
  orm: Orm;
  /** Which DIAN, and as which software. */
  dian: DianSettings;
  /** Opens the companies' sealed signing keys. */
  secrets: SecretBox;
  processes: Processes;
  logger: Logger;
}
type Deps = ReceptionEventDeps;

/**
 * Wakes the next event of the same document still processing, which may be waiting for this one. Only the next: when
 * it is final it wakes the one after it, so each waiting event is woken once. Best effort: its own timer covers a miss.
 */
async function wakeNext(
  deps: Deps,
  em: EntityManager,
  event: Pick<ReceptionEventForSubmission, 'documentId' | 'cufe' | 'eventType'>,
  subject: ReceptionEventSubject,
): Promise<void> {
  const next = await nextProcessingEvent(em, subject.companyId, event.documentId, resolvedAfter(event.eventType));
  if (!next) return;
  const sibling = {
    id: next.id,
    documentId: event.documentId,
    cufe: event.cufe,
    eventType: next.eventType,
    round: next.round,
  };
  await deps.processes.wakeReceptionEvent(subject.companyId, sibling, subject.timing).catch(() => undefined);
}

/** Writes the final state, only if this round is still the row's and still processing; a retried activity writes it once. */
async function finish(
  deps: Deps,
  em: EntityManager,
  event: ReceptionEventForSubmission,
  subject: ReceptionEventSubject,
  final: ReceptionEventFinal,
): Promise<ReceptionEventOutcome> {
  if (!(await recordFinalState(em, subject.companyId, subject.eventId, subject.round, final, new Date()))) {
    const fresh = await receptionEventForSubmission(em, subject.companyId, subject.eventId);
    return fresh && fresh.round === subject.round ? fresh.status : 'superseded';
  }
  await wakeNext(deps, em, event, subject);
  return final.status;
}

/** The ApplicationResponse of an event: sent by the company (the buyer) to the seller, or to DIAN for a tacit acceptance. */
function renditionOf(
  event: ReceptionEventForSubmission,
  signedAt: Date,
  dian: DianSettings,
  software: { id: string; pin: string },
) {
  const { company, credential, document, seller } = event;
  const sender = { name: company.name, nit: bareNit(credential?.dianNit ?? company.taxId) };
  return applicationResponse({
    eventCode: event.eventType,
    eventNumber: `${event.eventType}-${event.id.replaceAll('-', '')}-${event.round}`,
    signedAt,
    profileExecutionId: profileExecutionId(dian.environment),
    sender,
    // DIAN expects 034 from the seller; the spec lets the buyer send it, and DIAN decides what it makes of ours.
    receiver:
      event.eventType === '034'
        ? { name: 'Unidad Especial Dirección de Impuestos y Aduanas Nacionales', nit: DIAN_NIT }
        : { name: seller?.name ?? '', nit: bareNit(seller?.identifierNumber) },
    invoice: { number: document.documentNumber, cufe: event.cufe },
    claim:
      event.eventType === '031' && event.claim
        ? { code: event.claim.code, description: event.claim.description ?? '' }
        : null,
    person: carriesPerson(event.eventType) ? (credential?.dianEventPerson ?? null) : null,
    software: { ...software, providerNit: dian.softwareProviderNit ?? sender.nit },
  });
}

/** A rejection for want of set-up, recorded like DIAN's own, never sent. */
const unsendableFor = (rule: string, message: string, source = 'company_setup'): ReceptionEventFinal => ({
  status: 'rejected',
  message,
  dianResponse: { source, rule },
  issueDate: null,
});

/**
 * What signing the event needs: DIAN's software (the service's set-up) and the company's certificate, valid now and
 * naming its NIT. Without them the event is rejected with what to set up, and nothing is sent.
 */
async function signer(deps: Deps, em: EntityManager, event: ReceptionEventForSubmission, now: Date) {
  const { softwareId, softwarePin } = deps.dian;
  if (!softwareId || !softwarePin)
    return unsendableFor(
      'dian_software',
      'The service has no DIAN software configured (DIAN_SOFTWARE_ID and DIAN_SOFTWARE_PIN, as DIAN registered them): the operator sets them, then send the event again',
      'service_setup',
    );
  const identity = await signingIdentityOf(em, deps.secrets);
  if (!identity)
    return unsendableFor(
      'signing_certificate',
      "Events are signed with the company's certificate, and it has none registered: an operator registers it (ops fiscal certificate), then send the event again",
    );
  try {
    checkSigningCertificate(
      describeCertificate(identity.certificate),
      companyNit(event.company, event.credential) ?? '',
      now,
    );
  } catch (error) {
    if (!(error instanceof CertificateRefused)) throw error;
    return unsendableFor('signing_certificate', `${error.message}; nothing was sent to DIAN`);
  }
  return { identity, software: { id: softwareId, pin: softwarePin } };
}

/**
 * Why a 030 or 032 cannot be sent: DIAN refuses it without the person who receives for the company, and the company
 * has none registered (or an incomplete one). Null when the event can go.
 */
function missingPerson(event: ReceptionEventForSubmission): ReceptionEventFinal | null {
  if (!carriesPerson(event.eventType)) return null;
  const missing = missingPersonFields(event.credential?.dianEventPerson);
  if (missing.length === 0) return null;
  return {
    status: 'rejected',
    message:
      `Event ${event.eventType} must name the person who receives for the company (identity document, names, job title and department), ` +
      `as DIAN requires, and the company has none registered: ` +
      `an operator registers it (ops fiscal event-person), then send the event again`,
    dianResponse: { source: 'company_setup', rule: 'event_person', missing },
    issueDate: null,
  };
}

/** The event as this run's round has it, or null when a resend has started a newer round. */
async function current(em: EntityManager, subject: ReceptionEventSubject): Promise<ReceptionEventForSubmission | null> {
  const event = await receptionEventForSubmission(em, subject.companyId, subject.eventId);
  return event && event.round === subject.round ? event : null;
}

/**
 * Takes the event as far as it can go now. Right before submission it checks DIAN's ordering rules against the read
 * state: an earlier event of the document still processing means wait; a broken rule, or a 030 or 032 without the
 * company's event person, is recorded as a rejection, never sent. Otherwise it sends the event and records DIAN's
 * answer: accepted (with DIAN's registration time) or rejected with DIAN's reasons. Transient failures are thrown, for
 * Temporal to retry with back-off; business rejections are not.
 */
export async function advanceReceptionEvent(deps: Deps, subject: ReceptionEventSubject): Promise<ReceptionEventStep> {
  const em = companyEm(deps.orm, subject.companyId);
  const event = await current(em, subject);
  if (!event) return { action: 'done', status: 'superseded' };
  if (event.status !== 'processing') {
    await wakeNext(deps, em, event, subject);
    return { action: 'done', status: event.status };
  }

  const signedAt = new Date();
  const verdict = checkRadianOrder({
    eventType: event.eventType,
    invoice: { type: event.document.type, issueDate: event.document.issueDate, isCanceled: event.document.isCanceled },
    others: event.others,
    signingTime: signedAt,
  });
  if (verdict.kind === 'wait') return { action: 'wait', waitingFor: verdict.on };
  if (verdict.kind === 'reject') {
    return {
      action: 'done',
      status: await finish(deps, em, event, subject, {
        status: 'rejected',
        message: verdict.reason,
        dianResponse: { source: 'ordering_rules', rule: verdict.rule },
        issueDate: null,
      }),
    };
  }

  const unsendable = missingPerson(event);
  if (unsendable) return { action: 'done', status: await finish(deps, em, event, subject, unsendable) };

  const signing = await signer(deps, em, event, signedAt);
  if ('status' in signing) return { action: 'done', status: await finish(deps, em, event, subject, signing) };
  const rendition = renditionOf(event, signedAt, deps.dian, signing.software);
  const signedXml = await signUblDocument(rendition.xml, signing.identity, {
    signatureId: `xmldsig-${event.id}-${event.round}`,
    signingTime: signedAt,
    role: 'third party',
  });
  await countSubmission(em, subject.companyId, event.id, subject.round, signedAt);
  const answer = await sendEvent(deps.dian, signing.identity, {
    fileName: rendition.eventNumber,
    signedXml,
    testSetId: event.credential?.dianTestSetId ?? null,
  });
  const dianResponse = { source: 'dian', cude: rendition.cude, answer: answer.raw };
  const status =
    answer.accepted || answer.alreadyRegistered
      ? await finish(deps, em, event, subject, {
          status: 'accepted',
          message: null,
          dianResponse,
          issueDate: answer.registeredAt ?? new Date(),
        })
      : await finish(deps, em, event, subject, {
          status: 'rejected',
          message: answer.errors.join('; '),
          dianResponse,
          issueDate: null,
        });
  return { action: 'done', status };
}

/** Records that the event could not be submitted (DIAN unreachable after every retry, or a wait that never ended). */
export async function failReceptionEvent(
  deps: Deps,
  input: ReceptionEventSubject & { reason: string },
): Promise<ReceptionEventOutcome> {
  const em = companyEm(deps.orm, input.companyId);
  const event = await current(em, input);
  if (!event) return 'superseded';
  if (event.status !== 'processing') return event.status;
  return finish(deps, em, event, input, {
    status: 'failed',
    message: input.reason,
    dianResponse: null,
    issueDate: null,
  });
}

/**
 * Starts (or finds running) the workflow of each event of a batch, read back from its row, which goes once all have
 * started: a batch already gone was handed over by an earlier run.
 */
export async function startBatchWorkflows(deps: Deps, input: { companyId: string; batchId: string }): Promise<void> {
  const em = companyEm(deps.orm, input.companyId);
  const batch = await pendingReceptionEventBatch(em, input.companyId, input.batchId);
  if (!batch) return;
  const events = await queuedReceptionEvents(em, input.companyId, batch.eventIds, batch.resubmittedIds);
  await deps.processes.startReceptionEvents(input.companyId, events, batch.timing);
  await removeReceptionEventBatch(em, input.companyId, input.batchId);
}

/** How many stranded batches one sweep hands over; the next sweep takes the rest. */
const SWEEP_LIMIT = 500;

/** Starts the batch workflow of each batch queued over `olderThanMs` ago whose hand-over never happened; returns how many. */
export async function handOverStrandedBatches(deps: Deps, input: { olderThanMs: number }): Promise<number> {
  const stranded = await strandedReceptionEventBatches(
    systemEm(deps.orm),
    new Date(Date.now() - input.olderThanMs),
    SWEEP_LIMIT,
  );
  for (const batch of stranded) await deps.processes.startReceptionEventBatch(batch.companyId, batch.id);
  if (stranded.length > 0)
    deps.logger.warn(
      { batches: stranded.length },
      'handed over reception-event batches whose workflow had not started',
    );
  return stranded.length;
}
