import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import type { DecisionOption, StepKind } from './workflow-step.entity.ts';

/** One step of a flow definition, as set by `ops flows set`. */
export type FlowStepDefinition = {
  action: string;
  kind?: StepKind;
  /** E-mails of company members. */
  assignees?: string[];
  requireAll?: boolean;
  /** Actionable unless false. */
  actionable?: boolean;
  /** Classification: the field decided and, optionally, its options. */
  fieldName?: string;
  options?: DecisionOption[];
  /** Tagging: the allowed tag names; null or absent means any tag of the company. */
  tags?: string[] | null;
};
export type FlowDefinition = { steps: FlowStepDefinition[] };

/** The approval flow a company's documents go through. */
export const WorkflowFlow = defineEntity({
  name: 'WorkflowFlow',
  tableName: 'workflow_flows',
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company).unique(),
    definition: p.json<FlowDefinition>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type WorkflowFlow = InferEntity<typeof WorkflowFlow>;
