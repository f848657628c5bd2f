import { Document } from '../../db/documents/document.entity.ts';
import { activeCatalogLabels } from '../../db/erp/classification-options.ts';
import { BOOK_ACCOUNT_ACTION } from '../../services/accounting/accounting-questions.ts';
import type { EntityManager } from '../../db/orm.ts';
import { Tag, normalizeTagName } from '../../db/tags/tag.entity.ts';
import { stepAndMember } from '../../db/workflow-steps/decision-context.ts';
import { stepRecord, type StepRecord } from '../../db/workflow-steps/step-record.ts';
import { WorkflowStep } from '../../db/workflow-steps/workflow-step.entity.ts';
import { labelsOf, refuseDecision, stepState, STEP_REFUSALS } from '../../domain/step-rules.ts';
import { Refusal } from '../../platform/refusal.ts';
import { completeStepThroughLifecycle, flowEnded } from '../../temporal/documents.ts';
import { throughWorkflow } from '../../temporal/refusals.ts';
import { refusals } from '../refusals.ts';
import { presentCompletedStep, presentStep } from '../presenters/workflow-step.ts';
import { noContent, defineRoute } from '../route.ts';
import {
  CompleteStepRequest,
  CompleteStepResponse,
  CurrentStepQuery,
  CurrentStepResponse,
  StepParams,
} from '../schemas/workflow-steps.ts';

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
    errors: refusals(['document_not_found'], { shape: 'step' }),
    handler: async ({ em, query }) => {
      const document = await em.findOne(Document, { id: query.entity_reference.toLowerCase() }, { fields: ['id'] });
      if (!document) throw new Refusal('document_not_found', 'Document not found');
      const pending = await em.findOne(WorkflowStep, { document, status: 'pending' });
      return pending ? { step: presentStep(stepRecord(pending)) } : noContent();
    },
  }),
  defineRoute({
    method: 'post',
    path: '/workflow-steps/:reference/complete',
    operationId: 'completeWorkflowStep',
    summary: 'Decide a pending step on behalf of a company member',
    description: [
      'Answers the completed step, or the step still `pending` (with the caller marked `acted`)',
      'when every assignee must act and others remain. Two decisions racing on one step give one completion and one 409.',
    ].join(' '),
    tags: ['Workflow steps'],
    auth: 'api-key',
    feature: 'workflow_api',
    params: StepParams,
    body: CompleteStepRequest,
    response: CompleteStepResponse,
    errors: refusals(['step_not_found', 'acting_user_not_found_in_company', ...STEP_REFUSALS], { shape: 'step' }),
    handler: async ({ em, params, body, caller, deps, ctx }) => {
      // The step and the acting member in one statement; the answer is the step as the write left it.
      const { step: found, member } = await stepAndMember(em, {
        companyId: caller.company.id,
        stepId: params.reference.toLowerCase(),
        email: body.acting_user_email.toLowerCase(),
      });
      if (!found) throw new Refusal('step_not_found', 'Step not found');
      if (!member)
        throw new Refusal(
          'acting_user_not_found_in_company',
          `${body.acting_user_email} is not a member of the company`,
        );
      const actor = { email: member.email, name: member.name };
      const sent = Array.isArray(body.decision) ? body.decision : [body.decision];
      // A retry (same Idempotency-Key) of a request whose answer was lost joins its update, which may have acted.
      const key = ctx.get('idempotency-key');
      const refusal = refuseDecision(stepState(found), { stepId: found.id, actor, values: sent });
      if (refusal && !(key && refusal.code === 'step_not_pending')) throw new Refusal(refusal.code, refusal.message);
      const { values, labels } = await decidedValues(em, found, sent);
      const step = await throughWorkflow(
        () =>
          completeStepThroughLifecycle(
            deps.temporal,
            found.documentId,
            { stepId: found.id, actor, values, labels, comment: body.comment ?? null },
            key ? `${found.id}/${key}` : undefined,
          ),
        flowEnded,
      );
      return { step: step.status === 'completed' ? presentCompletedStep(step) : presentStep(step) };
    },
  }),
];

/**
 * The values as the step will record them, with their labels, found once here: options the step offers; for a
 * sample (unrestricted tagging, a large ERP catalog), any tag of the company (matched without case) or any active
 * record of the catalog, and nothing else.
 */
async function decidedValues(
  em: EntityManager,
  step: Pick<StepRecord, 'decision' | 'action'>,
  sent: string[],
): Promise<{ values: string[]; labels: string[] }> {
  const decision = step.decision;
  if (!decision || decision.optionsComplete) return { values: sent, labels: labelsOf(decision?.options ?? [], sent) };
  if (decision.kind === 'tagging') {
    const tags = await em.find(Tag, { normalizedName: { $in: sent.map(normalizeTagName) } });
    const byName = new Map(tags.map((tag) => [tag.normalizedName, tag.name]));
    const unknown = sent.filter((value) => !byName.has(normalizeTagName(value)));
    if (unknown.length) throw new Refusal('invalid_decision', `Not tags of the company: ${unknown.join(', ')}`);
    const values = sent.map((value) => byName.get(normalizeTagName(value))!);
    return { values, labels: values };
  }
  // The accounting agent's question takes debit accounts only: a credit one is not an answer to it.
  const only = step.action === BOOK_ACCOUNT_ACTION ? { nature: 'debit' as const } : undefined;
  const named = await activeCatalogLabels(em, decision.fieldName, sent, only);
  const unknown = sent.filter((value) => !named.has(value));
  if (unknown.length)
    throw new Refusal('invalid_decision', `Not active values of ${decision.fieldName}: ${unknown.join(', ')}`);
  return { values: sent, labels: labelsOf(decision.options, sent, named) };
}
