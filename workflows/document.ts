import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ApprovalStatus as ApprovalStatusValue } from '../db/documents/document.entity.ts';
import { closesStep, refuseDecision, type StepDecisionCommand, type StepState } from '../domain/step-rules.ts';
import type { ApproveCommand, LifecycleSnapshot, StepRecord } from '../services/documents/lifecycle.ts';
import { ApprovalStatus } from './search-attributes.ts';

export interface DocumentLifecycleInput {
  companyId: string;
  documentId: string;
}

/** An update, not a signal: the caller needs to know at once whether the decision was taken, and the step it left. */
export const completeStepUpdate = defineUpdate<StepRecord, [StepDecisionCommand]>('completeStep');
/** An update on the same workflow as step decisions, so that approving and deciding never interleave. */
export const approveUpdate = defineUpdate<{ approvalStatus: ApprovalStatusValue }, [ApproveCommand]>('approve');
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

const WRITER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', nonRetryableErrorTypes: ['DocumentNotFound'] },
};
const { openStep, completeStep, approveDocument } = proxyActivities<Activities>(WRITER_OPTIONS);
// A read, inside the first workflow task: a document whose flow has nothing to wait on ends in that one task.
const { loadLifecycle } = proxyLocalActivities<Activities>(WRITER_OPTIONS);

const refused = (refusal: { code: string; message: string }) =>
  ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });

/**
 * The state of one document's flow and the handlers that change it (the workflow above wires them to its messages). Decisions, approvals and steps resolved elsewhere write the read state one at a time, in the order taken.
 */
export class DocumentLifecycle {
  /** The step the flow waits on; null before it is known and once the flow has ended. */
  current: StepState | null;
  private snapshot: LifecycleSnapshot | undefined;
  private approval: ApprovalStatusValue;
  private accountingRegistered: boolean;
  /** The decision that closes this step is being written: it is no longer pending for anyone else. */
  private claimed: string | null = null;
  /** A write is running; the next ones wait for it, in the order they came (`waiting`). */
  private busy = false;
  private readonly waiting: (() => void)[] = [];
  /** The next step is being opened: the read state may show it already, so commands wait until this run knows it. */
  private opening = false;

  private readonly input: DocumentLifecycleInput;

  constructor(input: DocumentLifecycleInput, carried?: LifecycleSnapshot) {
    this.input = input;
    this.snapshot = carried;
    this.current = carried?.openStep ?? null;
    this.approval = carried?.approvalStatus ?? 'pending';
    this.accountingRegistered = carried?.accountingRegistered ?? false;
  }

  /** Until the run knows where its flow stands, commands wait (their validators let them through to wait here). */
  private get settled(): boolean {
    return this.snapshot !== undefined && !this.opening;
  }

  /** The update's validator: refuses what the step's rules refuse, before anything is recorded. */
  validate(command: StepDecisionCommand): void {
    if (!this.settled) return;
    const refusal = refuseDecision(this.current, command, this.claimed === this.current?.id);
    if (refusal) throw refused(refusal);
  }

  /** A company member's decision: recorded, and when it is the last one the step needs, it closes the step. */
  async decide(command: StepDecisionCommand): Promise<StepRecord> {
    if (!this.settled) await condition(() => this.settled);
    this.validate(command);
    const step = this.current!;
    const closes = closesStep(step, command.actor.email);
    step.assignees.find((person) => person.email === command.actor.email)!.acted = true;
    if (closes) this.claimed = step.id;
    return this.exclusive(async () => {
      const written = await completeStep({ ...this.input, ...command, close: closes });
      this.setApproval(written.approvalStatus);
      if (closes) step.status = 'completed';
      return written.step;
    });
  }

  /** POST /documents/{reference}/approve: approves the document, resolving an open approval step as approved. */
  async approve(command: ApproveCommand): Promise<{ approvalStatus: ApprovalStatusValue }> {
    if (!this.settled) await condition(() => this.settled);
    const step = this.current;
    const resolves =
      step && step.status === 'pending' && step.kind === 'approval' && this.claimed !== step.id ? step : null;
    if (resolves) this.claimed = resolves.id;
    return this.exclusive(async () => {
      let written: { approvalStatus: ApprovalStatusValue };
      try {
        written = await approveDocument({ ...this.input, ...command, resolvesStepId: resolves?.id ?? null });
      } catch (error) {
        if (
          error instanceof ActivityFailure &&
          error.cause instanceof ApplicationFailure &&
          error.cause.type === 'DocumentNotFound'
        )
          throw refused({ code: 'document_not_found', message: 'Document not found' });
        throw error;
      }
      if (resolves) resolves.status = 'completed';
      this.setApproval(written.approvalStatus);
      return { approvalStatus: written.approvalStatus };
    });
  }

  /** A step decided outside the API (accounting, an agent) is resolved by the process that owns it. */
  async resolveElsewhere(matches: (step: StepState) => boolean, by: string): Promise<void> {
    if (!this.settled) await condition(() => this.settled);
    const step = this.current;
    if (!step || !matches(step) || step.status !== 'pending' || step.actionable || this.claimed === step.id) return;
    this.claimed = step.id;
    await this.exclusive(async () => {
      await completeStep({
        ...this.input,
        stepId: step.id,
        actor: { email: '', name: by },
        values: [],
        labels: [],
        comment: null,
        close: true,
      });
      step.status = 'completed';
    });
  }

  /** The ERP registered the document's voucher: an open accounting step is resolved, and one opened later at once. */
  async registerAccounting(): Promise<void> {
    this.accountingRegistered = true;
    await this.resolveElsewhere(isAccounting, 'ERP registration');
  }

  /**
   * Runs the flow from where the read state says it stands, one step after the other, until it ends: every step
   * closed, or an approval rejected. Resolves with a snapshot instead when the run should carry on as a new one.
   */
  async run(): Promise<'ended' | LifecycleSnapshot> {
    const snapshot = (this.snapshot ??= await loadLifecycle(this.input));
    this.current ??= snapshot.openStep;
    this.approval = snapshot.approvalStatus;
    this.accountingRegistered ||= snapshot.accountingRegistered;
    if (snapshot.stoppedByRejection) return this.end();
    const done = new Set(snapshot.completedPositions);
    for (const [position, definition] of snapshot.flow.entries()) {
      if (done.has(position)) continue;
      if (this.approval === 'rejected') break;
      if (!this.current || this.current.position !== position) {
        this.opening = true;
        const opened = await this.exclusive(() => openStep({ ...this.input, position, definition }));
        this.current = opened.step;
        this.opening = false;
        // `in_review` while an approval step is open; or what the agent decided, when it decided the step as it opened.
        this.setApproval(opened.approvalStatus);
      }
      const step = this.current;
      if (this.accountingRegistered && isAccounting(step))
        await this.resolveElsewhere(isAccounting, 'ERP registration');
      // A step may wait for weeks: a long history carries on in a fresh run, still waiting on it. One the agent decided
      // as it opened is completed already: the flow goes straight on.
      await condition(() => step.status === 'completed' || (workflowInfo().continueAsNewSuggested && !this.busy));
      if (step.status !== 'completed') return this.carried([...done]);
      done.add(position);
    }
    return this.end();
  }

  private end(): 'ended' {
    this.current = null;
    return 'ended';
  }

  private carried(completedPositions: number[]): LifecycleSnapshot {
    return {
      ...this.snapshot!,
      completedPositions,
      openStep: this.current,
      approvalStatus: this.approval,
      accountingRegistered: this.accountingRegistered,
    };
  }

  private setApproval(status: ApprovalStatusValue): void {
    if (status === this.approval) return;
    this.approval = status;
    upsertSearchAttributes([{ key: ApprovalStatus, value: status }]);
  }

  /**
   * One write at a time, in the order asked. A write asked while none runs starts at once (no condition to wait on:
   * every promise a workflow makes costs its task time); one asked during another waits, and is handed the turn as
   * that one ends, so that two waiting writes never start together.
   */
  private async exclusive<T>(work: () => Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.busy = true;
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.busy = false;
    }
  }
}

const isAccounting = (step: StepState) => step.action === 'document.accounting';
