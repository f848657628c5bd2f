import { z } from 'zod';
import type { FlowDefinition } from './workflow-flow.entity.ts';

const Option = z.object({ value: z.string().min(1), label: z.string().min(1) });

const ActionableStep = z
  .object({
    action: z.string().min(1).describe('e.g. document.approval'),
    kind: z.enum(['approval', 'classification', 'tagging']),
    assignees: z.array(z.email()).min(1, 'An actionable step needs at least one assignee'),
    require_all: z.boolean().default(false).describe('true: every assignee must act; false: any one decides'),
    field_name: z.string().min(1).optional().describe('classification: the field decided, e.g. cost_center'),
    options: z
      .array(Option)
      .min(1)
      .optional()
      .describe(
        'classification: the values offered; default: the active records of the ERP catalog named by field_name',
      ),
    tags: z
      .array(z.string().trim().min(1).max(100))
      .min(1)
      .nullable()
      .optional()
      .describe('tagging: the allowed tags; null or absent: any tag of the company'),
    actionable: z.literal(true).optional(),
  })
  .superRefine((step, context) => {
    if (step.kind === 'classification' && !step.field_name)
      context.addIssue({ code: 'custom', path: ['field_name'], message: 'A classification step names its field' });
    if (step.kind !== 'classification' && (step.field_name || step.options))
      context.addIssue({
        code: 'custom',
        path: ['field_name'],
        message: 'Only classification steps take field_name and options',
      });
    if (step.kind !== 'tagging' && step.tags)
      context.addIssue({ code: 'custom', path: ['tags'], message: 'Only tagging steps take tags' });
  });

const ResolvedElsewhere = z.object({
  action: z.string().min(1).describe('e.g. document.accounting: resolved by registering the document in the ERP'),
  actionable: z.literal(false),
});

/** The flow file operators write (`ops flows set`): the steps every new document of the company goes through. */
export const FlowFile = z.object({
  steps: z
    .array(z.union([ResolvedElsewhere, ActionableStep]))
    .min(1)
    .max(20),
});

export function toFlowDefinition(file: z.output<typeof FlowFile>): FlowDefinition {
  return {
    steps: file.steps.map((step) =>
      'kind' in step
        ? {
            action: step.action,
            kind: step.kind,
            actionable: true,
            assignees: step.assignees.map((email) => email.toLowerCase()),
            requireAll: step.require_all,
            ...(step.field_name ? { fieldName: step.field_name } : {}),
            ...(step.options ? { options: step.options } : {}),
            ...(step.kind === 'tagging' ? { tags: step.tags ?? null } : {}),
          }
        : { action: step.action, actionable: false },
    ),
  };
}
