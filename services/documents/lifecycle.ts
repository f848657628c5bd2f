import { LockMode } from '@mikro-orm/core';
import { Refusal } from '../../platform/refusal.ts';
import { Company } from '../../db/companies/company.entity.ts';
import { Member } from '../../db/companies/member.entity.ts';
import type { Actor } from '../../db/documents/activity-log.entity.ts';
import { Document, type ApprovalStatus } from '../../db/documents/document.entity.ts';
import {
  readFlowPosition,
  readLifecycleState,
  writeLifecycle,
  type LifecycleState,
  type LifecycleWrite,
  type LogRow,
} from '../../db/documents/lifecycle-statements.ts';
import { catalogOptions } from '../../db/erp/classification-options.ts';
import { uuidv7 } from '../../db/ids.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { installmentsOf, nothingLeftToPay, owesPayables, payablesOf } from '../../db/payments/payable-schedule.ts';
import { Tag } from '../../db/tags/tag.entity.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import type { FlowStepDefinition } from '../../db/workflow-steps/workflow-flow.entity.ts';
import { stepRecord, type StepRecord } from '../../db/workflow-steps/step-record.ts';
import {
  WorkflowStep,
  type DecisionOption,
  type StepActor,
  type StepDecision,
  type StepResult,
} from '../../db/workflow-steps/workflow-step.entity.ts';
import { AGENT_QUESTION_POSITIONS, labelsOf, stepState, type Person, type StepState } from '../../domain/step-rules.ts';
import type { AccountingQuestion } from '../accounting/accounting-questions.ts';
import { AGENT_NAME, adviseStep } from '../recommendations/recommend.ts';

/** What a lifecycle run starts from: the company's flow as it was when the document arrived, and how far it got. */
export interface LifecycleSnapshot {
  flow: FlowStepDefinition[];
  completedPositions: number[];
  openStep: StepState | null;
  approvalStatus: ApprovalStatus;
  /** The flow stopped at a rejection: a later approval approves the document, and opens no further step. */
  stoppedByRejection: boolean;
  /** The ERP has registered the document's voucher (an accounting step resolves as soon as it opens). */
  accountingRegistered: boolean;
  /**
   * Accounting by itself: `idle` until the document is approved or its accounting step opens, `due` while its
   * voucher is being proposed or waits for a person's answer, `done` once it waits on nothing a person decides.
   */
  accounting: 'idle' | 'due' | 'done';
  /** How many steps the accounting agent has opened to ask a person. */
  questionsAsked: number;
}

/** Where a document just recorded stands on its company's flow: no step taken yet, its approval pending. */
export function newDocumentPosition(flow: FlowStepDefinition[]): LifecycleSnapshot {
  return {
    flow,
    completedPositions: [],
    openStep: null,
    approvalStatus: 'pending',
    stoppedByRejection: false,
    accountingRegistered: false,
    accounting: 'idle',
    questionsAsked: 0,
  };
}

/** An approval through POST /documents/{reference}/approve. */
export interface ApproveCommand {
  /** The integrator's ERP document reference, kept with the approval. */
  erpReference: string | null;
  /** Who approved, for the log: the API key's name. */
  by: string;
}

export const APPROVAL_OPTIONS: DecisionOption[] = [
  { value: 'approve', label: 'Approve' },
  { value: 'reject', label: 'Reject' },
];

/** How many of the company's tags an unrestricted tagging step shows as a sample. */
const TAG_SAMPLE = 50;

/**
 * The document; in a write, its row stays locked until the transaction ends. An attempt of a write that timed out
 * may still be running when its retry starts (waiting on a database that came back, say): the retry then waits for
 * it and sees what it wrote, instead of writing the same decision and its log a second time.
 */
async function documentOrFail(
  em: EntityManager,
  documentId: string,
  use: 'read' | 'write' = 'write',
): Promise<Document> {
  const lockMode = use === 'write' ? LockMode.PESSIMISTIC_WRITE : undefined;
  const document = await em.findOne(Document, { id: documentId }, { lockMode });
  if (!document) throw new Refusal('DocumentNotFound', `Document ${documentId} does not exist`);
  // Apart: PostgreSQL locks no row of the nullable side of a join.
  await em.populate(document, ['beneficiary']);
  return document;
}

/** Where a document's flow stands: the company's flow, the steps done, the one open, the approval status. */
export async function loadLifecycle(
  orm: Orm,
  input: { companyId: string; documentId: string },
): Promise<LifecycleSnapshot> {
  const position = await readFlowPosition(orm.em, input);
  if (!position) throw new Refusal('DocumentNotFound', `Document ${input.documentId} does not exist`);
  const open = position.steps.find((step) => step.status === 'pending');
  const completed = position.steps.filter((step) => step.status === 'completed');
  const state = position.registrationState;
  return {
    accountingRegistered: position.accountingRegistered,
    // Approved and never accounted, or waiting for a person: the run accounts (a no-op where the company does not).
    accounting:
      state === 'awaiting_classification' || state === 'awaiting_order_review'
        ? 'due'
        : state !== null
          ? 'done'
          : position.approvalStatus === 'approved'
            ? 'due'
            : 'idle',
    questionsAsked: position.steps.filter((step) => step.position >= AGENT_QUESTION_POSITIONS).length,
    flow: position.flow?.steps ?? [],
    completedPositions: completed.map((step) => step.position),
    openStep: open ? stepState(open) : null,
    approvalStatus: position.approvalStatus,
    stoppedByRejection: completed.some((step) => step.kind === 'approval' && step.result?.values[0] === 'reject'),
  };
}

async function decisionFor(
  em: EntityManager,
  definition: FlowStepDefinition,
  question?: AccountingQuestion,
): Promise<StepDecision | null> {
  if (definition.actionable === false || !definition.kind) return null;
  if (definition.kind === 'approval')
    return { kind: 'approval', multiple: false, fieldName: null, options: APPROVAL_OPTIONS, optionsComplete: true };
  if (definition.kind === 'classification') {
    const fieldName = definition.fieldName ?? null;
    if (definition.options?.length)
      return { kind: 'classification', multiple: false, fieldName, options: definition.options, optionsComplete: true };
    // The agent's question places debit lines: only debit accounts answer it.
    const catalog = await catalogOptions(em, fieldName, question ? { nature: 'debit' } : undefined);
    return {
      kind: 'classification',
      multiple: false,
      fieldName,
      options: catalog?.options ?? [],
      optionsComplete: catalog?.complete ?? true,
    };
  }
  if (definition.tags?.length)
    return {
      kind: 'tagging',
      multiple: true,
      fieldName: null,
      options: definition.tags.map((name) => ({ value: name, label: name })),
      optionsComplete: true,
    };
  const sample = await em.find(Tag, { isSystem: false }, { orderBy: { name: 'asc' }, limit: TAG_SAMPLE });
  return {
    kind: 'tagging',
    multiple: true,
    fieldName: null,
    options: sample.map((tag) => ({ value: tag.name, label: tag.name })),
    optionsComplete: false,
  };
}

/** A step as it opened, and the document's approval status after it (an agent may have decided it at once). */
export interface OpenedStep {
  step: StepState;
  approvalStatus: ApprovalStatus;
}

/**
 * Writes a step of the flow as it opens (idempotent per document and position), with the recommendations of the
 * company's agent for its kind when that is on. Above the company's threshold the agent decides the step at once: it
 * opens completed, with the outcome a person's decision would have had.
 */
export async function openStep(
  orm: Orm,
  input: {
    companyId: string;
    documentId: string;
    position: number;
    definition: FlowStepDefinition;
    /** A question of the accounting agent's: its words and guesses, never decided by the recommendation agent. */
    question?: AccountingQuestion;
  },
): Promise<OpenedStep> {
  const em = companyEm(orm, input.companyId);
  return em.transactional(async (tx) => {
    const document = await documentOrFail(tx, input.documentId);
    const opened = (step: WorkflowStep) => ({
      step: stepState(stepRecord(step)),
      approvalStatus: document.approvalStatus,
    });
    const existing = await tx.findOne(WorkflowStep, { document, position: input.position });
    if (existing) return opened(existing);
    const emails = (input.definition.assignees ?? []).map((email) => email.toLowerCase());
    const members = emails.length ? await tx.find(Member, { email: { $in: emails } }) : [];
    const decision = await decisionFor(tx, input.definition, input.question);
    const step = tx.create(WorkflowStep, {
      company: document.company,
      document,
      beneficiary: document.beneficiary ?? null,
      position: input.position,
      action: input.definition.action,
      kind: decision ? decision.kind : null,
      status: 'pending',
      actionable: decision !== null,
      requireAll: input.definition.requireAll ?? false,
      entity: {
        type: 'document',
        reference: document.id,
        documentNumber: document.documentNumber,
        concept:
          input.question?.concept ??
          (document.purchaseOrder
            ? `${document.documentNumber} (OC ${document.purchaseOrder})`
            : document.documentNumber),
        amountCents: document.amountCents.toString(),
        currency: document.currency,
        issueDate: document.issueDate?.toISOString() ?? null,
        expirationDate: document.expirationDate?.toISOString() ?? null,
        thirdParty: document.beneficiary
          ? [{ type: 'beneficiary', name: document.beneficiary.name, reference: document.beneficiary.id }]
          : [],
      },
      decision,
      assignees: members.map((member) => ({ email: member.email, name: member.name, acted: false })),
      recommendations: input.question?.recommendations ?? [],
    });
    if (decision?.kind === 'approval' && document.approvalStatus !== 'approved') document.approvalStatus = 'in_review';
    const advice = decision && !input.question ? await adviseStep(tx, { document, decision, now: new Date() }) : null;
    if (advice) step.recommendations = advice.recommendations;
    if (!advice?.decision) return opened(step);
    // Decided here, not through the API: the step was never anyone's to decide.
    step.actionable = false;
    step.decidedByAgent = true;
    const closed = await closeStep(
      tx,
      { ...input, stepId: step.id },
      {
        values: advice.decision.values,
        labels: advice.decision.labels,
        actedBy: { email: '', name: AGENT_NAME },
        actor: { type: 'agent', name: AGENT_NAME },
        comment: null,
        why: { rationale: advice.decision.rationale },
      },
    );
    return { step: stepState(closed.step), approvalStatus: closed.approvalStatus };
  });
}

/**
 * Takes back a pending step decided elsewhere (the accounting step, waiting on the ERP) so that a question of the
 * accounting agent's can open in its place: a document has one pending step at a time, and the ERP cannot register
 * a voucher that waits for a person. Nothing was decided on it; it opens again once the question is answered.
 */
export async function withdrawStep(orm: Orm, input: { companyId: string; documentId: string; stepId: string }) {
  const em = companyEm(orm, input.companyId);
  await em.nativeDelete(WorkflowStep, {
    id: input.stepId,
    document: input.documentId,
    status: 'pending',
    actionable: false,
  });
}

/**
 * Records one assignee's decision and, when it closes the step, its outcome: an approval sets approval_status
 * (and generates payables when approved), a tagging step tags the document. Safe to retry: a retried write finds its
 * own work done (the step completed, or this assignee marked as having acted).
 */
export async function completeStep(
  orm: Orm,
  input: {
    companyId: string;
    documentId: string;
    stepId: string;
    actor: Person;
    values: string[];
    /** The values' labels, as the API found them. */
    labels: string[];
    comment: string | null;
    close: boolean;
  },
): Promise<{ approvalStatus: ApprovalStatus; step: StepRecord }> {
  const em = companyEm(orm, input.companyId);
  return writeFromRead(em, { ...input }, async (state, at) => {
    const step = state.step;
    if (!step) throw new Error(`Step ${input.stepId} of document ${input.documentId} does not exist`);
    const human = input.actor.email !== '';
    const done = { write: null, answer: { approvalStatus: state.document.approvalStatus, step } };
    if (step.status === 'completed') return done;
    // The API's and the workflow's checks let no one act twice: an assignee already acted is this decision, written.
    if (human && !input.close && step.assignees.some((person) => person.email === input.actor.email && person.acted))
      return done;
    const actor: Actor = human
      ? { type: 'user', name: input.actor.name, email: input.actor.email, source: 'integration' }
      : { type: 'system', name: input.actor.name };
    const assignees = human
      ? step.assignees.map((assignee) =>
          assignee.email === input.actor.email ? { ...assignee, acted: true, values: input.values } : assignee,
        )
      : step.assignees;
    const write = emptyWrite(input, state, at);
    if (!input.close) {
      write.step = { id: step.id, expectedAssignees: step.assignees, assignees, completion: null };
      write.logs.push(
        logRow('document.updated', actor, {
          change: 'step_decision',
          step: step.id,
          action: step.action,
          values: input.values,
        }),
      );
      return {
        write,
        answer: { approvalStatus: state.document.approvalStatus, step: { ...step, assignees } },
      };
    }
    const values =
      step.kind === 'approval' && assignees.some((assignee) => assignee.values?.includes('reject'))
        ? ['reject']
        : input.values;
    const named = new Map(input.values.map((value, index) => [value, input.labels[index] ?? value]));
    return closeWith(em, write, state, step, assignees, {
      values,
      labels: labelsOf(step.decision?.options ?? [], values, named),
      actedBy: { email: input.actor.email, name: input.actor.name },
      actor,
      comment: input.comment,
    });
  });
}

/**
 * Adds to a write what closes `step` with a decision: the step completed, its log, and its outcome (an approval or a
 * rejection, payables and all; a tagging step's tags). Answers the write, and the step and approval status it leaves.
 */
async function closeWith(
  em: EntityManager,
  write: LifecycleWrite,
  state: LifecycleState,
  step: StepRecord,
  assignees: StepRecord['assignees'],
  close: Parameters<typeof closingOf>[1],
): Promise<{ write: LifecycleWrite; answer: { approvalStatus: ApprovalStatus; step: StepRecord } }> {
  const closing = closingOf(step, close);
  write.step = { id: step.id, expectedAssignees: step.assignees, assignees, completion: closing.fields };
  write.logs.push(logRow(closing.log.event, closing.log.actor, closing.log.metadata));
  let approvalStatus = state.document.approvalStatus;
  if (closing.outcome) approvalStatus = await approveOrReject(em, write, state, closing.outcome, close.actor, null);
  if (step.kind === 'tagging') {
    const tags = await ensureTags(em, em.getReference(Company, write.companyId), close.values);
    write.tags = {
      documentTags: tags.map((tag) => ({ id: uuidv7(), tagId: tag.id })),
      paymentTags: state.paymentIds.flatMap((paymentId) =>
        tags.map((tag) => ({ id: uuidv7(), paymentId, tagId: tag.id })),
      ),
    };
  }
  const completedAt = write.at.toISOString();
  const completed: StepRecord = { ...step, assignees, status: 'completed', completedAt, ...closing.fields };
  return { write, answer: { approvalStatus, step: completed } };
}

/** A step's completion: what it records, what it logs, and the approval or rejection it carries (approval steps). */
interface Closing {
  fields: { result: StepResult; actedBy: StepActor; comment: string | null };
  log: { event: string; actor: Actor; metadata: Record<string, unknown> };
  outcome: 'approved' | 'rejected' | null;
}

/**
 * Completes a step with its decision, whoever took it (a person, the process that owns it, the agent), and its
 * outcome: an approval approves or rejects the document (payables and all), a tagging step tags it.
 */
function closingOf(
  step: Pick<WorkflowStep, 'id' | 'action' | 'kind'>,
  close: {
    values: string[];
    labels: string[];
    actedBy: StepActor;
    actor: Actor;
    comment: string | null;
    /** More for the log (the agent's rationale). */
    why?: Record<string, unknown>;
  },
): Closing {
  const { values } = close;
  return {
    fields: { result: { values, labels: close.labels }, actedBy: close.actedBy, comment: close.comment },
    log: {
      event: 'document.updated',
      actor: close.actor,
      metadata: {
        change: 'step_completed',
        step: step.id,
        action: step.action,
        values,
        comment: close.comment,
        ...close.why,
      },
    },
    outcome: step.kind === 'approval' ? (values[0] === 'approve' ? 'approved' : 'rejected') : null,
  };
}

/**
 * The agent's decision as a step opens, in the transaction that wrote the step: closed by the same write as a
 * person's decision, once the step is in the database.
 */
async function closeStep(
  tx: EntityManager,
  ids: { companyId: string; documentId: string; stepId: string },
  close: Parameters<typeof closingOf>[1],
): Promise<{ approvalStatus: ApprovalStatus; step: StepRecord }> {
  await tx.flush();
  return writeFromRead(tx, ids, (state, at) => {
    if (!state.step) throw new Error(`Step ${ids.stepId} of document ${ids.documentId} was not written`);
    return closeWith(tx, emptyWrite(ids, state, at), state, state.step, state.step.assignees, close);
  });
}

/** What an approval or a rejection does to the document, from what it was: one home for both ways of writing it. */
interface ApprovalOutcome {
  approvalErpReference: string | null;
  /** The status, the ERP reference or the payment status changes. */
  changed: boolean;
  /** Nothing is left to pay: the document is `paid` at once. */
  paid: boolean;
  /** Its log entries, in order. */
  logs: { event: string; actor: Actor; metadata: Record<string, unknown> }[];
}

function approvalOutcome(
  document: Pick<Document, 'type' | 'amountCents' | 'prepaidCents' | 'approvalStatus' | 'paymentStatus'> & {
    approvalErpReference?: string | null;
  },
  status: 'approved' | 'rejected',
  actor: Actor,
  erpReference: string | null,
): ApprovalOutcome {
  const previousReference = document.approvalErpReference ?? null;
  const changed = document.approvalStatus !== status || (erpReference !== null && erpReference !== previousReference);
  const approvalErpReference = erpReference ?? previousReference;
  const logs: ApprovalOutcome['logs'] = [];
  if (changed) {
    logs.push({
      event: status === 'approved' ? 'document.approved' : 'document.updated',
      actor,
      metadata: status === 'approved' ? { erp_reference: approvalErpReference } : { change: 'rejected' },
    });
  }
  // Payments settle payment_status, but this document has no payable to pay: it is settled here, once and for good.
  const paid = status === 'approved' && nothingLeftToPay(document) && document.paymentStatus !== 'paid';
  if (paid) {
    logs.push({
      event: 'document.updated',
      actor,
      metadata: { change: 'payment_status', payment_status: 'paid', reason: 'nothing_left_to_pay' },
    });
  }
  return { approvalErpReference, changed: changed || paid, paid, logs };
}

/** Adds an approval or a rejection to a write, its payables too; answers the approval status it leaves. */
async function approveOrReject(
  em: EntityManager,
  write: LifecycleWrite,
  state: LifecycleState,
  status: 'approved' | 'rejected',
  actor: Actor,
  erpReference: string | null,
): Promise<ApprovalStatus> {
  const document = state.document;
  const outcome = approvalOutcome(document, status, actor, erpReference);
  write.document = {
    approvalStatus: status,
    approvalErpReference: outcome.approvalErpReference,
    approved: status === 'approved',
    paid: outcome.paid,
    changed: outcome.changed,
  };
  // Generated once: a document that has payables keeps them. A document SAT cancelled owes nothing: they start canceled.
  if (status === 'approved' && owesPayables(document) && !state.hasPayables)
    write.payables = payablesOf(document, await installmentsOf(em, document)).map((payable) => ({
      ...payable,
      ...(document.isCanceled ? { status: 'canceled' as const } : {}),
      id: uuidv7(),
    }));
  write.logs.push(...outcome.logs.map((log) => logRow(log.event, log.actor, log.metadata)));
  return status;
}

/** POST /documents/{reference}/approve: approved whatever it was, with the ERP reference; resolves an open approval step. */
export async function approveDocument(
  orm: Orm,
  input: {
    companyId: string;
    documentId: string;
    erpReference: string | null;
    by: string;
    resolvesStepId: string | null;
  },
): Promise<{ approvalStatus: ApprovalStatus }> {
  const em = companyEm(orm, input.companyId);
  return writeFromRead(em, { ...input, stepId: input.resolvesStepId }, async (state, at) => {
    const actor: Actor = { type: 'system', source: 'integration', name: input.by };
    const write = emptyWrite(input, state, at);
    const step = state.step?.status === 'pending' ? state.step : null;
    if (step) {
      write.step = {
        id: step.id,
        expectedAssignees: step.assignees,
        assignees: step.assignees,
        completion: {
          result: { values: ['approve'], labels: labelsOf(step.decision?.options ?? [], ['approve']) },
          actedBy: { email: '', name: input.by },
        },
      };
      write.logs.push(
        logRow('document.updated', actor, {
          change: 'step_completed',
          step: step.id,
          action: step.action,
          values: ['approve'],
          via: 'approve',
        }),
      );
    }
    const approvalStatus = await approveOrReject(em, write, state, 'approved', actor, input.erpReference);
    return { write, answer: { approvalStatus } };
  });
}

/** How often a write is planned again when the document changed between its read and its write. */
const PLANS = 5;

/**
 * Reads the document (and the step), lets `plan` decide what to write from it, and writes that in one statement;
 * when the document or the step changed in between (a concurrent attempt of the same write, most likely), reads and
 * plans again, so that the rules always decide on what is written. `plan` answers without a write when the work is
 * done already.
 */
async function writeFromRead<T>(
  em: EntityManager,
  ids: { companyId: string; documentId: string; stepId: string | null },
  plan: (state: LifecycleState, at: Date) => Promise<{ write: LifecycleWrite | null; answer: T }>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const state = await readLifecycleState(em, ids);
    if (!state) throw new Refusal('DocumentNotFound', `Document ${ids.documentId} does not exist`);
    const { write, answer } = await plan(state, new Date());
    if (!write || (await writeLifecycle(em, write))) return answer;
    if (attempt === PLANS) throw new Error(`Document ${ids.documentId} kept changing while a decision was written`);
  }
}

function emptyWrite(ids: { companyId: string; documentId: string }, state: LifecycleState, at: Date): LifecycleWrite {
  return {
    companyId: ids.companyId,
    documentId: ids.documentId,
    version: state.version,
    at,
    step: null,
    document: null,
    logs: [],
    payables: [],
    tags: { documentTags: [], paymentTags: [] },
  };
}

const logRow = (event: string, actor: Actor, metadata: Record<string, unknown>): LogRow => ({
  id: uuidv7(),
  event,
  actor,
  metadata,
});
