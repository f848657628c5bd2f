import { LockMode } from '@mikro-orm/core';
import { ApplicationFailure } from '@temporalio/common';
import { ErpDocument } from '../../db/accounting/erp-document.entity.ts';
import { Member } from '../../db/companies/member.entity.ts';
import { ActivityLog, type Actor } from '../../db/documents/activity-log.entity.ts';
import { Document, type ApprovalStatus } from '../../db/documents/document.entity.ts';
import { catalogOptions } from '../../db/erp/classification-options.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { generatePayables, nothingLeftToPay } from '../../db/payments/payable-schedule.ts';
import { Tag } from '../../db/tags/tag.entity.ts';
import { ensureTags, tagDocument } from '../../db/tags/tag.repository.ts';
import { WorkflowFlow, type FlowStepDefinition } from '../../db/workflow-steps/workflow-flow.entity.ts';
import {
  WorkflowStep,
  type DecisionOption,
  type StepActor,
  type StepDecision,
} from '../../db/workflow-steps/workflow-step.entity.ts';
import { labelsOf, type Person, type StepState } from '../../domain/step-rules.ts';
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
}

/** An approval through POST /documents/{reference}/approve. */
export interface ApproveCommand {
  /** The integrator's ERP document reference, kept with the approval. */
  erpReference: string | null;
  /** Who approved, for the log: the API key's name. */
  by: string;
}

/** A step as written, in the shape answers are made from (JSON: it travels back through the workflow). */
export interface StepRecord {
  id: string;
  action: string;
  kind: WorkflowStep['kind'];
  status: WorkflowStep['status'];
  actionable: boolean;
  createdAt: string;
  completedAt: string | null;
  entity: WorkflowStep['entity'];
  decision: WorkflowStep['decision'];
  assignees: WorkflowStep['assignees'];
  recommendations: WorkflowStep['recommendations'];
  result: WorkflowStep['result'];
  actedBy: WorkflowStep['actedBy'];
}

export function stepRecord(step: WorkflowStep): StepRecord {
  return {
    id: step.id,
    action: step.action,
    kind: step.kind ?? null,
    status: step.status,
    actionable: step.actionable,
    createdAt: step.createdAt.toISOString(),
    completedAt: step.completedAt?.toISOString() ?? null,
    entity: step.entity,
    decision: step.decision ?? null,
    assignees: step.assignees,
    recommendations: step.recommendations,
    result: step.result ?? null,
    actedBy: step.actedBy ?? null,
  };
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
  if (!document) throw ApplicationFailure.nonRetryable(`Document ${documentId} does not exist`, 'DocumentNotFound');
  // Apart: PostgreSQL locks no row of the nullable side of a join.
  await em.populate(document, ['beneficiary']);
  return document;
}

export function stepState(step: WorkflowStep): StepState {
  return {
    id: step.id,
    position: step.position,
    action: step.action,
    kind: step.kind ?? null,
    actionable: step.actionable,
    requireAll: step.requireAll,
    multiple: step.decision?.multiple ?? false,
    options: step.decision?.options ?? [],
    optionsComplete: step.decision?.optionsComplete ?? true,
    assignees: step.assignees.map(({ email, name, acted }) => ({ email, name, acted })),
    status: step.status,
  };
}

/** Where a document's flow stands: the company's flow, the steps done, the one open, the approval status. */
export async function loadLifecycle(
  orm: Orm,
  input: { companyId: string; documentId: string },
): Promise<LifecycleSnapshot> {
  const em = companyEm(orm, input.companyId);
  const document = await documentOrFail(em, input.documentId, 'read');
  const flow = await em.findOne(WorkflowFlow, { company: input.companyId });
  const steps = await em.find(WorkflowStep, { document }, { orderBy: { position: 'asc' } });
  const open = steps.find((step) => step.status === 'pending');
  const erp = await em.findOne(ErpDocument, { document }, { fields: ['registered'] });
  const completed = steps.filter((step) => step.status === 'completed');
  return {
    accountingRegistered: erp?.registered ?? false,
    flow: flow?.definition.steps ?? [],
    completedPositions: completed.map((step) => step.position),
    openStep: open ? stepState(open) : null,
    approvalStatus: document.approvalStatus,
    stoppedByRejection: completed.some((step) => step.kind === 'approval' && step.result?.values[0] === 'reject'),
  };
}

async function decisionFor(em: EntityManager, definition: FlowStepDefinition): Promise<StepDecision | null> {
  if (definition.actionable === false || !definition.kind) return null;
  if (definition.kind === 'approval')
    return { kind: 'approval', multiple: false, fieldName: null, options: APPROVAL_OPTIONS, optionsComplete: true };
  if (definition.kind === 'classification') {
    const fieldName = definition.fieldName ?? null;
    if (definition.options?.length)
      return { kind: 'classification', multiple: false, fieldName, options: definition.options, optionsComplete: true };
    const catalog = await catalogOptions(em, fieldName);
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
  input: { companyId: string; documentId: string; position: number; definition: FlowStepDefinition },
): Promise<OpenedStep> {
  const em = companyEm(orm, input.companyId);
  return em.transactional(async (tx) => {
    const document = await documentOrFail(tx, input.documentId);
    const opened = (step: WorkflowStep) => ({ step: stepState(step), approvalStatus: document.approvalStatus });
    const existing = await tx.findOne(WorkflowStep, { document, position: input.position });
    if (existing) return opened(existing);
    const emails = (input.definition.assignees ?? []).map((email) => email.toLowerCase());
    const members = emails.length ? await tx.find(Member, { email: { $in: emails } }) : [];
    const decision = await decisionFor(tx, input.definition);
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
        concept: document.purchaseOrder
          ? `${document.documentNumber} (OC ${document.purchaseOrder})`
          : document.documentNumber,
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
      recommendations: [],
    });
    if (decision?.kind === 'approval' && document.approvalStatus !== 'approved') document.approvalStatus = 'in_review';
    const advice = decision ? await adviseStep(tx, { document, decision, now: new Date() }) : null;
    if (advice) step.recommendations = advice.recommendations;
    if (advice?.decision) {
      // Decided here, not through the API: the step was never anyone's to decide.
      step.actionable = false;
      step.decidedByAgent = true;
      await closeStep(tx, document, step, {
        values: advice.decision.values,
        labels: advice.decision.labels,
        actedBy: { email: '', name: AGENT_NAME },
        actor: { type: 'agent', name: AGENT_NAME },
        comment: null,
        why: { rationale: advice.decision.rationale },
      });
    }
    return opened(step);
  });
}

/**
 * Records one assignee's decision and, when it closes the step, its outcome: an approval sets approval_status
 * (and generates payables when approved), a tagging step tags the document. Safe to retry.
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
  return em.transactional(async (tx) => {
    const document = await documentOrFail(tx, input.documentId);
    const step = await tx.findOneOrFail(WorkflowStep, { id: input.stepId, document });
    const written = () => ({ approvalStatus: document.approvalStatus, step: stepRecord(step) });
    // A retried write finds its own work done.
    if (step.status === 'completed') return written();
    const human = input.actor.email !== '';
    const actor: Actor = human
      ? { type: 'user', name: input.actor.name, email: input.actor.email, source: 'integration' }
      : { type: 'system', name: input.actor.name };
    if (human) {
      step.assignees = step.assignees.map((assignee) =>
        assignee.email === input.actor.email ? { ...assignee, acted: true, values: input.values } : assignee,
      );
    }
    if (!input.close) {
      tx.create(ActivityLog, {
        company: document.company,
        document,
        event: 'document.updated',
        actor,
        metadata: { change: 'step_decision', step: step.id, action: step.action, values: input.values },
      });
      return written();
    }
    const values =
      step.kind === 'approval' && step.assignees.some((assignee) => assignee.values?.includes('reject'))
        ? ['reject']
        : input.values;
    const named = new Map(input.values.map((value, index) => [value, input.labels[index] ?? value]));
    await closeStep(tx, document, step, {
      values,
      labels: labelsOf(step.decision?.options ?? [], values, named),
      actedBy: { email: input.actor.email, name: input.actor.name },
      actor,
      comment: input.comment,
    });
    return written();
  });
}

/**
 * Completes a step with its decision, whoever took it (a person, the process that owns it, the agent), and its
 * outcome: an approval approves or rejects the document (payables and all), a tagging step tags it.
 */
async function closeStep(
  tx: EntityManager,
  document: Document,
  step: WorkflowStep,
  close: {
    values: string[];
    labels: string[];
    actedBy: StepActor;
    actor: Actor;
    comment: string | null;
    /** More for the log (the agent's rationale). */
    why?: Record<string, unknown>;
  },
): Promise<void> {
  const { values } = close;
  step.status = 'completed';
  step.completedAt = new Date();
  step.result = { values, labels: close.labels };
  step.actedBy = close.actedBy;
  step.comment = close.comment;
  tx.create(ActivityLog, {
    company: document.company,
    document,
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
  });
  if (step.kind === 'approval')
    await decideApproval(tx, document, values[0] === 'approve' ? 'approved' : 'rejected', close.actor, null);
  if (step.kind === 'tagging')
    await tagDocument(tx, document.company, document, await ensureTags(tx, document.company, values));
}

async function decideApproval(
  em: EntityManager,
  document: Document,
  status: 'approved' | 'rejected',
  actor: Actor,
  erpReference: string | null,
): Promise<void> {
  const changed =
    document.approvalStatus !== status || (erpReference !== null && erpReference !== document.approvalErpReference);
  document.approvalStatus = status;
  if (erpReference !== null) document.approvalErpReference = erpReference;
  if (status === 'approved') {
    document.approvedAt ??= new Date();
    await generatePayables(em, document);
  }
  if (changed) {
    em.create(ActivityLog, {
      company: document.company,
      document,
      event: status === 'approved' ? 'document.approved' : 'document.updated',
      actor,
      metadata:
        status === 'approved' ? { erp_reference: document.approvalErpReference ?? null } : { change: 'rejected' },
    });
  }
  // Payments settle payment_status, but this document has no payable to pay: it is settled here, once and for good.
  if (status === 'approved' && nothingLeftToPay(document) && document.paymentStatus !== 'paid') {
    document.paymentStatus = 'paid';
    em.create(ActivityLog, {
      company: document.company,
      document,
      event: 'document.updated',
      actor,
      metadata: { change: 'payment_status', payment_status: 'paid', reason: 'nothing_left_to_pay' },
    });
  }
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
  return em.transactional(async (tx) => {
    const document = await documentOrFail(tx, input.documentId);
    const actor: Actor = { type: 'system', source: 'integration', name: input.by };
    if (input.resolvesStepId) {
      const step = await tx.findOne(WorkflowStep, { id: input.resolvesStepId, document, status: 'pending' });
      if (step) {
        step.status = 'completed';
        step.completedAt = new Date();
        step.result = { values: ['approve'], labels: labelsOf(step.decision?.options ?? [], ['approve']) };
        step.actedBy = { email: '', name: input.by };
        tx.create(ActivityLog, {
          company: document.company,
          document,
          event: 'document.updated',
          actor,
          metadata: {
            change: 'step_completed',
            step: step.id,
            action: step.action,
            values: ['approve'],
            via: 'approve',
          },
        });
      }
    }
    await decideApproval(tx, document, 'approved', actor, input.erpReference);
    return { approvalStatus: document.approvalStatus };
  });
}
