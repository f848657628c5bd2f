import { Member } from '../../db/companies/member.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { activeCatalogLabels } from '../../db/erp/classification-options.ts';
import type { EntityManager } from '../../db/orm.ts';
import { Tag, normalizeTagName } from '../../db/tags/tag.entity.ts';
import { WorkflowStep } from '../../db/workflow-steps/workflow-step.entity.ts';
import { completeStepThroughLifecycle } from '../../temporal/documents.ts';
import { noContent, defineRoute } from '../route.ts';
import { presentCompletedStep, presentStep } from '../presenters/workflow-step.ts';
import {
  CompleteStepRequest,
  CompleteStepResponse,
  CurrentStepQuery,
  CurrentStepResponse,
  StepParams,
} from '../schemas/workflow-steps.ts';
import { asStepCommand, stepError } from '../workflow-errors.ts';

const step = (status: number, code: string, description: string) => ({
  status,
  code,
  description,
  shape: 'step' as const,
});

/** The document workflow's steps, decided through the API on behalf of a company member. */
export const workflowStepRoutes = [
  defineRoute({
    method: 'get',
    path: '/workflow-steps/current',
    operationId: 'getCurrentWorkflowStep',
    summary: "The document's pending step",
    description:
      'No webhook announces a new step: query when needed. A step with `actionable: false` and `decision: null` is pending but decided elsewhere (accounting, an agent).',
    tags: ['Workflow steps'],
    auth: 'api-key',
    feature: 'workflow_api',
    query: CurrentStepQuery,
    response: CurrentStepResponse,
    alternatives: [{ status: 204, description: 'No pending step: the flow ended or has not started' }],
    errors: [step(404, 'document_not_found', 'no document of the company has this reference')],
    handler: async ({ em, query }) => {
      const document = await em.findOne(Document, { id: query.entity_reference.toLowerCase() }, { fields: ['id'] });
      if (!document) throw stepError('document_not_found', 404, 'Document not found');
      const pending = await em.findOne(WorkflowStep, { document, status: 'pending' });
      return pending ? { step: presentStep(pending) } : noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: '/workflow-steps/:reference/complete',
    operationId: 'completeWorkflowStep',
    summary: 'Decide a pending step on behalf of a company member',
    description:
      'Answers the completed step, or the step still `pending` (with the caller marked `acted`) when every assignee must act and others remain. Two decisions racing on one step give one completion and one 409.',
    tags: ['Workflow steps'],
    auth: 'api-key',
    feature: 'workflow_api',
    params: StepParams,
    body: CompleteStepRequest,
    response: CompleteStepResponse,
    errors: [
      step(400, 'acting_user_not_found_in_company', 'acting_user_email is not a member of the company'),
      step(403, 'not_assigned', 'the acting user is not an assignee of the step'),
      step(404, 'step_not_found', 'no step of the company has this reference'),
      step(
        409,
        'step_not_pending',
        'the step is already resolved (or the user already acted): do not retry, query the current step again',
      ),
      step(
        422,
        'invalid_decision',
        'a value the step does not offer; in unrestricted tagging, a tag the company does not have',
      ),
      step(422, 'unsupported_step', 'the step is not decided through this API (actionable false)'),
    ],
    handler: async ({ em, params, body, deps, ctx }) => {
      const found = await em.findOne(WorkflowStep, { id: params.reference.toLowerCase() });
      if (!found) throw stepError('step_not_found', 404, 'Step not found');
      if (found.status !== 'pending')
        throw stepError('step_not_pending', 409, 'The step is already completed: query the current step again');
      const member = await em.findOne(Member, { email: body.acting_user_email.toLowerCase() });
      if (!member)
        throw stepError(
          'acting_user_not_found_in_company',
          400,
          `${body.acting_user_email} is not a member of the company`,
        );
      let values = Array.isArray(body.decision) ? body.decision : [body.decision];
      if (found.decision?.kind === 'tagging' && !found.decision.optionsComplete)
        values = await companyTagNames(em, values);
      if (found.decision?.kind === 'classification' && !found.decision.optionsComplete)
        await activeCatalogValues(em, found.decision.fieldName, values);
      // A retry (same Idempotency-Key) of a request whose answer was lost joins its update rather than being refused.
      const key = ctx.get('idempotency-key');
      await asStepCommand(() =>
        completeStepThroughLifecycle(
          deps.temporal,
          found.document.id,
          {
            stepId: found.id,
            actor: { email: member.email, name: member.name },
            values,
            comment: body.comment ?? null,
          },
          key ? `${found.id}/${key}` : undefined,
        ),
      );
      const written = await em.fork().findOneOrFail(WorkflowStep, { id: found.id });
      return { step: written.status === 'completed' ? presentCompletedStep(written) : presentStep(written) };
    },
  }),
];

/** A classification whose options are a sample accepts any active record of its catalog, and nothing else. */
async function activeCatalogValues(em: EntityManager, fieldName: string | null, values: string[]): Promise<void> {
  const labels = await activeCatalogLabels(em, fieldName, values);
  const unknown = values.filter((value) => !labels.has(value));
  if (unknown.length)
    throw stepError('invalid_decision', 422, `Not active values of ${fieldName}: ${unknown.join(', ')}`);
}

/** Unrestricted tagging accepts any tag of the company, and nothing else; names are matched without case. */
async function companyTagNames(em: EntityManager, values: string[]): Promise<string[]> {
  const tags = await em.find(Tag, { normalizedName: { $in: values.map(normalizeTagName) } });
  const byName = new Map(tags.map((tag) => [tag.normalizedName, tag.name]));
  const unknown = values.filter((value) => !byName.has(normalizeTagName(value)));
  if (unknown.length) throw stepError('invalid_decision', 422, `Not tags of the company: ${unknown.join(', ')}`);
  return values.map((value) => byName.get(normalizeTagName(value))!);
}
