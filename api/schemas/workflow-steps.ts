import { z } from 'zod';
import { Currency, Reference } from '../../platform/schema-atoms.ts';
import { CONFIDENCE_LEVELS } from '../../db/workflow-steps/workflow-step.entity.ts';
import { StepKind } from '../../read-models/enums.ts';
import { RECOMMENDATION_RULES as RULES } from '../../services/recommendations/scoring.ts';

const DateTime = z.iso.datetime({ offset: true });

const Option = z.strictObject({
  value: z.string().describe('Opaque token: send it back unchanged'),
  label: z.string(),
});

export const PendingStep = z
  .strictObject({
    reference: Reference.describe('The step reference, used in the complete path'),
    action: z.string().describe('e.g. document.approval'),
    status: z.enum(['pending', 'completed']),
    actionable: z.boolean().describe('false: the step is not decided through this API'),
    created_at: DateTime,
    entity: z.strictObject({
      type: z.literal('document'),
      reference: Reference,
      document_number: z.string(),
      concept: z.string().nullable(),
      amount_cents: z.string().describe('Amount in cents, as a string'),
      amount_currency: Currency,
      issue_date: DateTime.nullable(),
      expiration_date: DateTime.nullable(),
      third_party: z.array(z.strictObject({ type: z.literal('beneficiary'), name: z.string(), reference: Reference })),
    }),
    decision: z
      .strictObject({
        kind: StepKind,
        multiple: z.boolean(),
        field_name: z.string().nullable(),
        options: z.array(Option),
        options_complete: z.boolean().describe('false: options is only a sample; any tag of the company is valid'),
      })
      .nullable(),
    assignees: z.array(z.strictObject({ email: z.string(), name: z.string(), acted: z.boolean() })),
    recommendations: z
      .array(
        z.strictObject({
          value: z.string().describe("One of the decision's option values (for tagging, a tag of the company)"),
          confidence_level: z
            .enum(CONFIDENCE_LEVELS)
            .describe(
              [
                'How strongly the evidence backs the value, by its score',
                '(the lower bound of the 95% Wilson interval of the share of decisions that chose it):',
                `\`high\` at ${RULES.highScore} or more, \`medium\` at ${RULES.mediumScore} or more, else \`low\``,
              ].join(' '),
            ),
          rationale: z
            .string()
            .describe(
              'The counts behind it, for a person, e.g. "approve: 24 approved and 0 rejected for ACME S.A.S. at amounts within 10% of this one"',
            ),
        }),
      )
      .describe(
        [
          "Filled only when the company's recommendation agent for this kind of step is on (`ops agents set`),",
          "from the decisions people took on the same supplier's documents in the company:",
          `its last ${RULES.windowDecisions} completed steps of this kind (and, for a classification, of this field_name)`,
          `within ${RULES.windowDays} days, and for approvals only those at amounts within`,
          `${RULES.amountTolerancePercent}% in the same currency. Empty with fewer than ${RULES.minDecisions} such decisions.`,
          'Approval and classification: the value a majority chose; tagging: each tag chosen for more than half of them.',
          'When the company lets the agent decide above a score, a step whose best score is above it is completed by the',
          'agent as it opens (logged with actor type `agent`) and never shows as pending',
        ].join(' '),
      ),
  })
  .meta({ id: 'WorkflowStep' });

export const CompletedStep = z
  .strictObject({
    reference: Reference,
    action: z.string(),
    status: z.literal('completed'),
    completed_at: DateTime,
    decision: z.strictObject({
      kind: StepKind.nullable(),
      values: z.array(z.string()),
      labels: z.array(z.string()),
    }),
    acted_by: z.strictObject({ email: z.string(), name: z.string() }),
  })
  .meta({ id: 'CompletedWorkflowStep' });

export const CurrentStepQuery = z.object({ entity_reference: Reference.describe('The document reference') });
export const CurrentStepResponse = z.strictObject({ step: PendingStep });

export const StepParams = z.object({
  reference: Reference.describe('The step reference (not the document reference)'),
});
export const CompleteStepRequest = z.object({
  decision: z
    .union([z.string().min(1), z.array(z.string().min(1)).min(1)])
    .describe('One option value; an array of values when decision.multiple is true'),
  acting_user_email: z.email().describe('A company member who is an assignee of the step'),
  comment: z.string().max(2000, 'Must be at most 2000 characters').optional(),
});
export const CompleteStepResponse = z.strictObject({ step: z.union([CompletedStep, PendingStep]) });
