import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import type { StepAssignee, StepDecision, StepKind, StepStatus } from './workflow-step.entity.ts';

/** A step as a decision on it is checked before it goes to the document's workflow. */
export interface StepToDecide {
  id: string;
  documentId: string;
  position: number;
  action: string;
  kind: StepKind | null;
  status: StepStatus;
  actionable: boolean;
  requireAll: boolean;
  decision: StepDecision | null;
  assignees: StepAssignee[];
}

/**
 * What `POST /workflow-steps/{reference}/complete` checks before it asks the workflow, in one statement: the step
 * (null when the company has none with this reference) and the company member acting (null when none has this
 * e-mail). Bypasses the ORM's tenant filter: both tables are constrained by the company.
 */
export async function stepAndMember(
  em: EntityManager,
  ids: { companyId: string; stepId: string; email: string },
): Promise<{ step: StepToDecide | null; member: { email: string; name: string } | null }> {
  const [row] = await runStatement<{
    id: string | null;
    document_id: string;
    position: number;
    action: string;
    kind: StepKind | null;
    status: StepStatus;
    actionable: boolean;
    require_all: boolean;
    decision: StepDecision | null;
    assignees: StepAssignee[];
    member_email: string | null;
    member_name: string;
  }>(
    em,
    `select s."id", s."document_id", s."position", s."action", s."kind", s."status", s."actionable", s."require_all",
       s."decision", s."assignees", m."email" as "member_email", m."name" as "member_name"
     from (values (1)) as "one"
     left join "workflow_steps" as s on s."id" = :stepId and s."company_id" = :companyId
     left join "members" as m on m."email" = :email and m."company_id" = :companyId`,
    ids,
  );
  return {
    step: row?.id
      ? {
          id: row.id,
          documentId: row.document_id,
          position: row.position,
          action: row.action,
          kind: row.kind,
          status: row.status,
          actionable: row.actionable,
          requireAll: row.require_all,
          decision: row.decision,
          assignees: row.assignees,
        }
      : null,
    member: row?.member_email ? { email: row.member_email, name: row.member_name } : null,
  };
}
