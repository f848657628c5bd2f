import type { StepRecord } from '../db/workflow-steps/step-record.ts';
import type { DecisionOption, StepKind } from '../db/workflow-steps/workflow-step.entity.ts';

// The rules of a decision on a document's flow step, in one place: the API checks them before it asks the lifecycle
// (to answer at once), and the lifecycle checks them again against its own state before anything is written. Pure
// and deterministic: the workflow runs them in its sandbox.

/** The steps the accounting agent opens to ask a person sit after any flow's own (at most 20), from here on. */
export const AGENT_QUESTION_POSITIONS = 1000;

/** A step as the lifecycle tracks it; the read state holds the same, for the API. */
export interface StepState {
  id: string;
  position: number;
  action: string;
  kind: StepKind | null;
  actionable: boolean;
  requireAll: boolean;
  multiple: boolean;
  options: DecisionOption[];
  /** False when `options` is a sample (unrestricted tagging, a large catalog): the API has checked the values. */
  optionsComplete: boolean;
  assignees: { email: string; name: string; acted: boolean }[];
  status: 'pending' | 'completed';
}

/** A step's record as the lifecycle tracks it. */
export function stepState(
  step: Pick<
    StepRecord,
    'id' | 'position' | 'action' | 'kind' | 'actionable' | 'requireAll' | 'decision' | 'assignees' | 'status'
  >,
): StepState {
  return {
    id: step.id,
    position: step.position,
    action: step.action,
    kind: step.kind,
    actionable: step.actionable,
    requireAll: step.requireAll,
    multiple: step.decision?.multiple ?? false,
    options: step.decision?.options ?? [],
    optionsComplete: step.decision?.optionsComplete ?? true,
    assignees: step.assignees.map(({ email, name, acted }) => ({ email, name, acted })),
    status: step.status,
  };
}

export interface Person {
  email: string;
  name: string;
}

/** A company member's decision on a step, as the API takes it. */
export interface StepDecisionCommand {
  stepId: string;
  actor: Person;
  /** Option values as sent (opaque tokens); one for single-choice steps. */
  values: string[];
  /** What each value is called, found once by the API (offered options, the company's tags, the ERP catalog). */
  labels: string[];
  comment: string | null;
}

/** Why a decision is refused, named as the spec's error codes. */
export const STEP_REFUSALS = ['step_not_pending', 'not_assigned', 'invalid_decision', 'unsupported_step'] as const;
export type StepRefusalCode = (typeof STEP_REFUSALS)[number];

export interface StepRefusal<Code extends string = string> {
  code: Code;
  message: string;
}

/**
 * Why `decision` may not be taken on `step` (null: it may). `claimed`: the lifecycle is already writing the decision
 * that closes this step, so it is no longer pending for anyone else.
 */
export function refuseDecision(
  step: StepState | null,
  decision: Pick<StepDecisionCommand, 'stepId' | 'actor' | 'values'>,
  claimed = false,
): StepRefusal<StepRefusalCode> | null {
  if (!step || step.id !== decision.stepId || step.status !== 'pending' || claimed)
    return { code: 'step_not_pending', message: 'The step is not pending: query the current step again' };
  if (!step.actionable) return { code: 'unsupported_step', message: 'This step is not decided through this API' };
  const assignee = step.assignees.find((person) => person.email === decision.actor.email);
  if (!assignee) return { code: 'not_assigned', message: `${decision.actor.email} is not an assignee of this step` };
  if (assignee.acted)
    return { code: 'step_not_pending', message: `${decision.actor.email} has already acted on this step` };
  if (decision.values.length === 0 || (!step.multiple && decision.values.length !== 1))
    return { code: 'invalid_decision', message: step.multiple ? 'Send at least one value' : 'Send exactly one value' };
  if (step.optionsComplete) {
    const offered = new Set(step.options.map((option) => option.value));
    const unknown = decision.values.filter((value) => !offered.has(value));
    if (unknown.length) return { code: 'invalid_decision', message: `Not offered by this step: ${unknown.join(', ')}` };
  }
  return null;
}

/** The labels of decided values: as the step offers them, else as `named` gives them, else the value itself. */
export function labelsOf(
  options: readonly DecisionOption[],
  values: readonly string[],
  named: ReadonlyMap<string, string> = new Map(),
): string[] {
  const offered = new Map(options.map((option) => [option.value, option.label]));
  return values.map((value) => offered.get(value) ?? named.get(value) ?? value);
}

/** Whether a step's assignees have all acted once `email` acts: the decision that closes a step needing all of them. */
export function closesStep(step: Pick<StepState, 'requireAll' | 'assignees'>, email: string): boolean {
  return !step.requireAll || step.assignees.every((person) => person.acted || person.email === email);
}
