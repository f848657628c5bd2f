import type { z } from 'zod';
import type { StepRecord } from '../../db/workflow-steps/step-record.ts';
import type { CompletedStep, PendingStep } from '../schemas/workflow-steps.ts';

/** A step as GET /workflow-steps/current shows it (and complete, while others must still act). */
export function presentStep(step: StepRecord): z.input<typeof PendingStep> {
  const entity = step.entity;
  return {
    reference: step.id,
    action: step.action,
    status: step.status,
    actionable: step.actionable,
    created_at: step.createdAt,
    entity: {
      type: 'document',
      reference: entity.reference,
      document_number: entity.documentNumber,
      concept: entity.concept,
      amount_cents: entity.amountCents,
      amount_currency: entity.currency,
      issue_date: entity.issueDate,
      expiration_date: entity.expirationDate,
      third_party: entity.thirdParty,
    },
    decision: step.decision
      ? {
          kind: step.decision.kind,
          multiple: step.decision.multiple,
          field_name: step.decision.fieldName,
          options: step.decision.options,
          options_complete: step.decision.optionsComplete,
        }
      : null,
    assignees: step.assignees.map(({ email, name, acted }) => ({ email, name, acted })),
    recommendations: step.recommendations.map((recommendation) => ({
      value: recommendation.value,
      confidence_level: recommendation.confidenceLevel,
      rationale: recommendation.rationale,
    })),
  };
}

/** A step that a decision closed. */
export function presentCompletedStep(step: StepRecord): z.input<typeof CompletedStep> {
  return {
    reference: step.id,
    action: step.action,
    status: 'completed',
    completed_at: step.completedAt ?? step.createdAt,
    decision: { kind: step.kind ?? null, values: step.result?.values ?? [], labels: step.result?.labels ?? [] },
    acted_by: step.actedBy ?? { email: '', name: '' },
  };
}
