import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import { STEP_RECORD_SQL, type StepRecord } from './step-record.ts';

/**
 * What `POST /workflow-steps/{reference}/complete` checks before it asks the workflow, in one statement: the step
 * (null when the company has none with this reference) and the company member acting (null when none has this
 * e-mail). Bypasses the ORM's tenant filter: both tables are constrained by the company.
 */
export async function stepAndMember(
  em: EntityManager,
  ids: { companyId: string; stepId: string; email: string },
): Promise<{ step: StepRecord | null; member: { email: string; name: string } | null }> {
  const [row] = await runStatement<{
    step: StepRecord | null;
    member_email: string | null;
    member_name: string;
  }>(
    em,
    `select case when s."id" is null then null else ${STEP_RECORD_SQL} end as "step",
       m."email" as "member_email", m."name" as "member_name"
     from (values (1)) as "one"
     left join "workflow_steps" as s on s."id" = :stepId and s."company_id" = :companyId
     left join "members" as m on m."email" = :email and m."company_id" = :companyId`,
    ids,
  );
  return {
    step: row?.step ?? null,
    member: row?.member_email ? { email: row.member_email, name: row.member_name } : null,
  };
}
