import { isoTimestamp } from '../prepared.ts';
import type {
  StepActor,
  StepAssignee,
  StepDecision,
  StepEntitySnapshot,
  StepKind,
  StepRecommendation,
  StepResult,
  StepStatus,
  WorkflowStep,
} from './workflow-step.entity.ts';

/**
 * A step as statements read it and answers are made from it: plain JSON, so that it also travels through the
 * document's workflow. The domain's view of it is `StepState` (domain/step-rules.ts).
 */
export interface StepRecord {
  id: string;
  documentId: string;
  position: number;
  action: string;
  kind: StepKind | null;
  status: StepStatus;
  actionable: boolean;
  requireAll: boolean;
  createdAt: string;
  completedAt: string | null;
  entity: StepEntitySnapshot;
  decision: StepDecision | null;
  assignees: StepAssignee[];
  recommendations: StepRecommendation[];
  result: StepResult | null;
  actedBy: StepActor | null;
}

/** A step entity as a record. */
export function stepRecord(step: WorkflowStep): StepRecord {
  return {
    id: step.id,
    documentId: step.document.id,
    position: step.position,
    action: step.action,
    kind: step.kind ?? null,
    status: step.status,
    actionable: step.actionable,
    requireAll: step.requireAll,
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

/** SQL that builds the StepRecord of the `workflow_steps` row named `s` in a statement. */
export const STEP_RECORD_SQL = `json_build_object('id', s."id", 'documentId', s."document_id", 'position', s."position",
  'action', s."action", 'kind', s."kind", 'status', s."status", 'actionable', s."actionable",
  'requireAll', s."require_all", 'createdAt', ${isoTimestamp('s."created_at"')},
  'completedAt', ${isoTimestamp('s."completed_at"')}, 'entity', s."entity", 'decision', s."decision",
  'assignees', s."assignees", 'recommendations', s."recommendations", 'result', s."result",
  'actedBy', s."acted_by")`;
