import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import { Company } from '../companies/company.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { uuidKey } from '../ids.ts';
import type { Currency } from '../money.ts';

export const STEP_KINDS = ['approval', 'classification', 'tagging'] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const STEP_STATUSES = ['pending', 'completed'] as const;
export type StepStatus = (typeof STEP_STATUSES)[number];

export type DecisionOption = { value: string; label: string };

/** What the step asks; null when the step is not decided through the API. */
export type StepDecision = {
  kind: StepKind;
  multiple: boolean;
  fieldName: string | null;
  options: DecisionOption[];
  /** False when `options` is only a sample (tagging without restriction). */
  optionsComplete: boolean;
};

/** `values` keeps what this assignee decided, when steps need every assignee. */
export type StepAssignee = { email: string; name: string; acted: boolean; values?: string[] };
export const CONFIDENCE_LEVELS = ['high', 'medium', 'low'] as const;
export type ConfidenceLevel = (typeof CONFIDENCE_LEVELS)[number];
export type StepRecommendation = { value: string; confidenceLevel: ConfidenceLevel; rationale: string };
export type StepResult = { values: string[]; labels: string[] };
export type StepActor = { email: string; name: string };

/** The document as the step presents it, frozen when the step was created. */
export type StepEntitySnapshot = {
  type: 'document';
  reference: string;
  documentNumber: string;
  concept: string | null;
  /** Cents as a string, as the spec renders them. */
  amountCents: string;
  currency: Currency;
  issueDate: string | null;
  expirationDate: string | null;
  thirdParty: { type: 'beneficiary'; name: string; reference: string }[];
};

/** One step of a document's approval flow; its id is the step reference of the workflow-steps API. */
export const WorkflowStep = defineEntity({
  name: 'WorkflowStep',
  tableName: 'workflow_steps',
  uniques: [
    { properties: ['document', 'position'] },
    // A document has at most one pending step.
    { name: 'workflow_steps_one_pending_per_document', properties: ['document'], where: { status: 'pending' } },
  ],
  indexes: [
    // The people's decisions on a supplier's documents, newest first: what the recommendation agent learns from.
    {
      name: 'workflow_steps_decision_history_index',
      properties: ['company', 'beneficiary', 'kind', 'completedAt'],
      where: { status: 'completed', decidedByAgent: false },
    },
  ],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document),
    /** The document's supplier when the step opened: whose decisions a recommendation draws on. */
    beneficiary: () => p.manyToOne(Beneficiary).nullable(),
    position: p.integer(),
    /** e.g. `document.approval`, `document.accounting`. */
    action: p.string(),
    /** Null for steps that are not decided through the API (e.g. accounting). */
    kind: p.enum(STEP_KINDS).nativeEnumName('step_kind').nullable(),
    status: p.enum(STEP_STATUSES).nativeEnumName('step_status').default('pending'),
    actionable: p.boolean(),
    requireAll: p.boolean().default(false),
    entity: p.json<StepEntitySnapshot>(),
    decision: p.json<StepDecision>().nullable(),
    assignees: p.json<StepAssignee[]>().onCreate(() => []),
    recommendations: p.json<StepRecommendation[]>().onCreate(() => []),
    result: p.json<StepResult>().nullable(),
    actedBy: p.json<StepActor>().nullable(),
    comment: p.text().nullable(),
    /** Completed by the recommendation agent: not a person's decision, so not learnt from. */
    decidedByAgent: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
});
export type WorkflowStep = InferEntity<typeof WorkflowStep>;
