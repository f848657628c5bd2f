// What a long-lived flow waits for, in words: its current details in the Temporal UI, set as it starts to wait.
import type { StepState } from '../domain/step-rules.ts';

const VERBS = { approval: 'approve', classification: 'classify', tagging: 'tag' } as const;

/** `Carla Contreras`, `Carla Contreras or Luis Gómez`, `Carla Contreras and Luis Gómez` (every one must act). */
function whoIsLeft(step: StepState): string {
  const left = step.assignees.filter((person) => !person.acted).map((person) => person.name || person.email);
  if (left.length === 0) return 'its assignees';
  if (left.length === 1) return left[0]!;
  return `${left.slice(0, -1).join(', ')} ${step.requireAll ? 'and' : 'or'} ${left.at(-1)}`;
}

/** `2026-11-20`: workflow time, so that a replay says the same. */
const day = (at: Date) => at.toISOString().slice(0, 10);

/**
 * `Waiting for Carla Contreras to approve (step 1 of 2) since 2026-11-20`. `steps`: how many the company's flow has;
 * a question of the accounting agent's is not one of them.
 */
export function waitingOnStep(step: StepState, steps: number, question: boolean, since: Date): string {
  if (question)
    return `Waiting for ${whoIsLeft(step)} to answer the accounting agent (${step.action}) since ${day(since)}`;
  const where = `(step ${step.position + 1} of ${steps})`;
  if (!step.actionable)
    return step.action === 'document.accounting'
      ? `Waiting for the ERP to register the voucher ${where} since ${day(since)}`
      : `Waiting for ${step.action} to be resolved ${where} since ${day(since)}`;
  const verb = step.kind ? VERBS[step.kind] : 'decide';
  return `Waiting for ${whoIsLeft(step)} to ${verb} ${where} since ${day(since)}`;
}
