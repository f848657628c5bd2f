import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ApprovalStatus as ApprovalStatusValue } from '../db/documents/document.entity.ts';
import type { FlowStepDefinition } from '../db/workflow-steps/workflow-flow.entity.ts';
import type { DecisionOption, StepKind } from '../db/workflow-steps/workflow-step.entity.ts';
import { ApprovalStatus } from './search-attributes.ts';

export interface DocumentLifecycleInput {
  companyId: string;
  documentId: string;
}

/** A step as the workflow tracks it; the read state holds the same, for the API. */
export interface StepState {
  id: string;
  position: number;
  action: string;
  kind: StepKind | null;
  actionable: boolean;
  requireAll: boolean;
  multiple: boolean;
  options: DecisionOption[];
  optionsComplete: boolean;
  assignees: { email: string; name: string; acted: boolean }[];
  status: 'pending' | 'completed';
}

/** What a run starts from: the company's flow as it was when the document arrived, and how far it got. */
export interface LifecycleSnapshot {
  flow: FlowStepDefinition[];
  completedPositions: number[];
  openStep: StepState | null;
  approvalStatus: ApprovalStatusValue;
  /** The ERP has registered the document's voucher (an accounting step resolves as soon as it opens). */
  accountingRegistered: boolean;
}

export interface Person {
  email: string;
  name: string;
}

export interface CompleteStepCommand {
  stepId: string;
  actor: Person;
  /** Option values as sent (opaque tokens); one for single-choice steps. */
  values: string[];
  comment: string | null;
}

export interface ApproveCommand {
  /** The integrator's ERP document reference, kept with the approval. */
  erpReference: string | null;
  /** Who approved, for the log: the API key's name. */
  by: string;
}

/** Rejections of a step decision, named as the spec's error codes. */
export const STEP_ERRORS = ['step_not_pending', 'not_assigned', 'invalid_decision', 'unsupported_step'] as const;
export type StepErrorCode = (typeof STEP_ERRORS)[number];

/** An update, not a signal: the caller needs to know at once whether the decision was taken. */
export const completeStepUpdate = defineUpdate<{ status: 'pending' | 'completed' }, [CompleteStepCommand]>(
  'completeStep',
);
/** An update on the same workflow as step decisions, so that approving and deciding never interleave. */
export const approveUpdate = defineUpdate<{ approvalStatus: ApprovalStatusValue }, [ApproveCommand]>('approve');
/** A step that is not decided through the API (accounting, an agent) is resolved by the process that owns it. */
export const resolveStepSignal = defineSignal<[{ stepId: string; by: string }]>('resolveStep');
/** The ERP registered the document's voucher: an open accounting step (not decided through the API) is resolved. */
export const accountingRegisteredSignal = defineSignal('accountingRegistered');
export const currentStepQuery = defineQuery<StepState | null>('currentStep');

const WRITER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', nonRetryableErrorTypes: ['DocumentNotFound'] },
};
const { loadLifecycle, openStep, completeStep, approveDocument } = proxyActivities<Activities>(WRITER_OPTIONS);
/** The writes of the synchronous commands as local activities, for the runs recorded while they were (see `writesInTask`). */
const inTask = proxyLocalActivities<Activities>(WRITER_OPTIONS);
/**
 * Whether this run writes a command's read state in a local activity, inside the workflow task that took the update:
 * only runs recorded between the two patches. A local activity writes before that task is recorded, so a Temporal
 * server lost at that moment forgets the update while the write stays (the read state says decided, the workflow
 * waits for the decision for ever), and two updates taken in one task did not replay. New runs schedule activities:
 * the update is recorded as accepted before anything is written.
 */
const writesInTask = () => !patched('command-writes-as-activities') && patched('command-writes-in-workflow-task');

const refuse = (code: StepErrorCode, message: string) =>
  ApplicationFailure.create({ type: code, message, nonRetryable: true });

/**
 * The life of one received document, as workflow `document/<reference>`: runs the company's flow (approval,
 * classification, tagging and steps resolved elsewhere, in order), writes each step to the read state as it opens
 * and closes, and serves approval at any time. Long-lived: it continues as new when its history grows.
 */
export async function documentLifecycle(input: DocumentLifecycleInput, carried?: LifecycleSnapshot): Promise<void> {
  let snapshot: LifecycleSnapshot | undefined = carried;
  let current: StepState | null = carried?.openStep ?? null;
  let approval: ApprovalStatusValue = carried?.approvalStatus ?? 'pending';
  /** A decision or approval is being written; a second one on the same step is refused, others wait their turn. */
  let claimed: string | null = null;
  let accountingRegistered = carried?.accountingRegistered ?? false;
  let busy = false;
  /**
   * The next step is being opened: the read state may already show it pending while the run does not know it yet,
   * so commands wait for it. Runs recorded before the patch judged such commands against the previous step.
   */
  let opening = false;
  const waitsForOpening = patched('commands-wait-for-opening-step');
  const settled = () => snapshot !== undefined && !(waitsForOpening && opening);

  const exclusive = async <T>(work: () => Promise<T>): Promise<T> => {
    await condition(() => !busy);
    busy = true;
    try {
      return await work();
    } finally {
      busy = false;
    }
  };

  const setApproval = (status: ApprovalStatusValue) => {
    approval = status;
    upsertSearchAttributes([{ key: ApprovalStatus, value: status }]);
  };

  const check = (command: CompleteStepCommand): void => {
    const step = current;
    if (!step || step.id !== command.stepId || step.status !== 'pending' || claimed === step.id)
      throw refuse('step_not_pending', 'The step is not pending: query the current step again');
    if (!step.actionable) throw refuse('unsupported_step', 'This step is not decided through this API');
    const assignee = step.assignees.find((person) => person.email === command.actor.email);
    if (!assignee) throw refuse('not_assigned', `${command.actor.email} is not an assignee of this step`);
    if (assignee.acted) throw refuse('step_not_pending', `${command.actor.email} has already acted on this step`);
    if (command.values.length === 0 || (!step.multiple && command.values.length !== 1))
      throw refuse('invalid_decision', step.multiple ? 'Send at least one value' : 'Send exactly one value');
    if (step.optionsComplete) {
      const offered = new Set(step.options.map((option) => option.value));
      const unknown = command.values.filter((value) => !offered.has(value));
      if (unknown.length) throw refuse('invalid_decision', `Not offered by this step: ${unknown.join(', ')}`);
    }
  };

  setHandler(currentStepQuery, () => current);

  setHandler(
    completeStepUpdate,
    async (command) => {
      await condition(settled);
      check(command);
      const step = current!;
      const assignee = step.assignees.find((person) => person.email === command.actor.email)!;
      assignee.acted = true;
      const last = !step.requireAll || step.assignees.every((person) => person.acted);
      if (last) claimed = step.id;
      return exclusive(async () => {
        const write = writesInTask() ? inTask.completeStep : completeStep;
        const written = await write({
          companyId: input.companyId,
          documentId: input.documentId,
          stepId: step.id,
          actor: command.actor,
          values: command.values,
          comment: command.comment,
          close: last,
        });
        if (written.approvalStatus !== approval) setApproval(written.approvalStatus);
        if (last) step.status = 'completed';
        return { status: step.status };
      });
    },
    // Validators run before anything is written; until the run knows its step, the handler checks instead.
    { validator: (command) => (settled() ? check(command) : undefined) },
  );

  setHandler(approveUpdate, async (command) => {
    await condition(settled);
    const step = current;
    // Approving through the API resolves an open approval step as approved, and the flow goes on.
    const resolves = step && step.status === 'pending' && step.kind === 'approval' && claimed !== step.id ? step : null;
    if (resolves) claimed = resolves.id;
    return exclusive(async () => {
      const write = writesInTask() ? inTask.approveDocument : approveDocument;
      const written = await write({
        companyId: input.companyId,
        documentId: input.documentId,
        erpReference: command.erpReference,
        by: command.by,
        resolvesStepId: resolves?.id ?? null,
      });
      if (resolves) resolves.status = 'completed';
      setApproval(written.approvalStatus);
      return { approvalStatus: written.approvalStatus };
    });
  });

  const resolveElsewhere = async (matches: (step: StepState) => boolean, by: string) => {
    await condition(settled);
    const step = current;
    if (!step || !matches(step) || step.status !== 'pending' || step.actionable || claimed === step.id) return;
    claimed = step.id;
    await exclusive(async () => {
      await completeStep({
        companyId: input.companyId,
        documentId: input.documentId,
        stepId: step.id,
        actor: { email: '', name: by },
        values: [],
        comment: null,
        close: true,
      });
      step.status = 'completed';
    });
  };
  setHandler(resolveStepSignal, ({ stepId, by }) => resolveElsewhere((step) => step.id === stepId, by));
  const isAccounting = (step: StepState) => step.action === 'document.accounting';
  setHandler(accountingRegisteredSignal, async () => {
    accountingRegistered = true;
    await resolveElsewhere(isAccounting, 'ERP registration');
  });

  // A read, so it runs inside the first workflow task (no update waits on it) instead of a round trip through the server.
  snapshot ??= await (patched('lifecycle-loaded-in-task') ? inTask.loadLifecycle : loadLifecycle)(input);
  current ??= snapshot.openStep;
  approval = snapshot.approvalStatus;
  accountingRegistered ||= snapshot.accountingRegistered;
  const done = new Set(snapshot.completedPositions);

  for (const [position, definition] of snapshot.flow.entries()) {
    if (done.has(position)) continue;
    if (approval === 'rejected') break;
    if (!current || current.position !== position) {
      opening = true;
      current = await exclusive(() =>
        openStep({ companyId: input.companyId, documentId: input.documentId, position, definition }),
      );
      opening = false;
      if (current.kind === 'approval' && approval !== 'approved') setApproval('in_review');
    }
    const step = current;
    if (accountingRegistered && isAccounting(step)) await resolveElsewhere(isAccounting, 'ERP registration');
    await condition(() => step.status === 'completed');
    done.add(position);
  }
  current = null;

  // The flow is over; the document still takes approvals. Continue as new before the history gets long.
  await condition(() => workflowInfo().continueAsNewSuggested && !busy);
  await condition(allHandlersFinished);
  await continueAsNew<typeof documentLifecycle>(input, {
    flow: snapshot.flow,
    completedPositions: [...done],
    openStep: null,
    approvalStatus: approval,
    accountingRegistered,
  });
}
