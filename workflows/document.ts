import {
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  setHandler,
} from '@temporalio/workflow';
import type { ApprovalStatus } from '../db/documents/document.entity.ts';
import type { StepDecisionCommand, StepState } from '../domain/step-rules.ts';
import type { ApproveCommand, LifecycleSnapshot, StepRecord } from '../services/documents/lifecycle.ts';
import { DocumentLifecycle, type DocumentLifecycleInput } from './document-lifecycle.ts';

export type { DocumentLifecycleInput } from './document-lifecycle.ts';

/** An update, not a signal: the caller needs to know at once whether the decision was taken, and the step it left. */
export const completeStepUpdate = defineUpdate<StepRecord, [StepDecisionCommand]>('completeStep');
/** An update on the same workflow as step decisions, so that approving and deciding never interleave. */
export const approveUpdate = defineUpdate<{ approvalStatus: ApprovalStatus }, [ApproveCommand]>('approve');
/** A step that is not decided through the API (accounting, an agent) is resolved by the process that owns it. */
export const resolveStepSignal = defineSignal<[{ stepId: string; by: string }]>('resolveStep');
/** The ERP registered the document's voucher: an open accounting step (not decided through the API) is resolved. */
export const accountingRegisteredSignal = defineSignal('accountingRegistered');
export const currentStepQuery = defineQuery<StepState | null>('currentStep');

/**
 * The flow of one received document, as workflow `document/<reference>`: the company's steps (approval,
 * classification, tagging, steps resolved elsewhere) in order, each written to the read state as it opens and closes,
 * approvals taken at any time. It completes when the flow ends; an approval after that starts a new run
 * (update-with-start), which finds the flow over in the read state and only approves.
 */
export async function documentLifecycle(input: DocumentLifecycleInput, carried?: LifecycleSnapshot): Promise<void> {
  const lifecycle = new DocumentLifecycle(input, carried);
  setHandler(currentStepQuery, () => lifecycle.current);
  setHandler(completeStepUpdate, (command) => lifecycle.decide(command), {
    validator: (command) => lifecycle.validate(command),
  });
  setHandler(approveUpdate, (command) => lifecycle.approve(command));
  setHandler(resolveStepSignal, ({ stepId, by }) => lifecycle.resolveElsewhere((step) => step.id === stepId, by));
  setHandler(accountingRegisteredSignal, () => lifecycle.registerAccounting());

  const outcome = await lifecycle.run();
  await condition(allHandlersFinished);
  if (outcome !== 'ended') await continueAsNew<typeof documentLifecycle>(input, outcome);
}
