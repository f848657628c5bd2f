import {
  ActivityFailure,
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  patched,
  defineQuery,
  defineSignal,
  defineUpdate,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ActivityOptions,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ApprovalStatus as ApprovalStatusValue } from '../db/documents/document.entity.ts';
import {
  AGENT_QUESTION_POSITIONS,
  closesStep,
  refuseDecision,
  type StepDecisionCommand,
  type StepState,
} from '../domain/step-rules.ts';
import type { AccountingQuestion } from '../services/accounting/accounting-questions.ts';
import type { StepRecord } from '../db/workflow-steps/step-record.ts';
import type { ApproveCommand, LifecycleSnapshot } from '../services/documents/lifecycle.ts';
import { waitingOnStep } from './details.ts';
import { ApprovalStatus, WaitingSince } from './search-attributes.ts';

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
/** The document's voucher waits for a person (an operator's run or a catalog sync found so): the flow asks. */
export const accountingAskedSignal = defineSignal('accountingAsked');
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
  setHandler(accountingAskedSignal, () => lifecycle.askAccounting());

  let outcome = await lifecycle.run();
  await condition(allHandlersFinished);
  // An approval taken after the flow ended still accounts the document, and may still ask a person.
  while (outcome === 'ended' && lifecycle.accountingPending) {
    outcome = await lifecycle.finishAccounting();
    await condition(allHandlersFinished);
  }
  if (outcome !== 'ended') await continueAsNew<typeof documentLifecycle>(input, outcome);
}

const WRITER_OPTIONS: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', nonRetryableErrorTypes: ['DocumentNotFound'] },
};
const { openStep, completeStep, approveDocument, withdrawStep } = proxyActivities<Activities>(WRITER_OPTIONS);
// Retried until it goes through: a voucher waits on nothing but the database and the catalogs.
const { accountAutomatically } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', nonRetryableErrorTypes: ['DocumentNotFound'] },
});
// A read, inside the first workflow task: a document whose flow has nothing to wait on ends in that one task.
const { loadLifecycle } = proxyLocalActivities<Activities>(WRITER_OPTIONS);

const refused = (refusal: { code: string; message: string }) =>
  ApplicationFailure.create({ type: refusal.code, message: refusal.message, nonRetryable: true });

/**
 * The state of one document's flow and the handlers that change it (the workflow above wires them to its messages).
 * Decisions, approvals and steps resolved elsewhere write the read state one at a time, in the order taken.
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
  /**
   * Accounting by itself: `idle` until the document is approved (or its accounting step opens), `due` until the
   * voucher is handed over or waits on nothing a person can answer, then `done`.
   */
  private accounting: LifecycleSnapshot['accounting'];
  /** The accounting activity running in the background, while the flow goes on. */
  private accountingRun: Promise<void> | null = null;
  /** What the agent asks a person, once no other step is pending. */
  private question: AccountingQuestion | null = null;
  /** How many questions the agent has asked on this document: the next one opens at the position after them. */
  private questionsAsked: number;
  /** The flow's positions done when the run left its flow (to carry on from, should accounting still wait). */
  private ended: number[] = [];
  /** The step the flow waits on, and since when (as this run saw it). */
  private waitingSince: { stepId: string; at: Date } | null = null;

  private readonly input: DocumentLifecycleInput;

  constructor(input: DocumentLifecycleInput, carried?: LifecycleSnapshot) {
    this.input = input;
    this.snapshot = carried;
    this.current = carried?.openStep ?? null;
    this.approval = carried?.approvalStatus ?? 'pending';
    this.accountingRegistered = carried?.accountingRegistered ?? false;
    this.accounting = carried?.accounting ?? 'idle';
    this.questionsAsked = carried?.questionsAsked ?? 0;
  }

  /** Accounting is running or has a question to ask. */
  get accountingPending(): boolean {
    return this.accountingRun !== null || this.question !== null;
  }

  /**
   * Starts accounting in the background: once (`again` for an answer given, or a question raised elsewhere). The
   * approval's answer never waits for it.
   */
  private startAccounting(again = false): void {
    if (this.accountingRun || (!again && this.accounting !== 'idle')) return;
    this.accounting = 'due';
    this.accountingRun = this.account();
  }

  private async account(): Promise<void> {
    try {
      this.question = await accountAutomatically.executeWithOptions(
        { summary: 'The accounting agent builds the voucher and hands it to the ERP' },
        [this.input],
      );
      if (!this.question) this.accounting = 'done';
    } catch (error) {
      // Only a document that no longer exists fails it for good: nothing is left to account.
      if (!(error instanceof ActivityFailure)) throw error;
      this.accounting = 'done';
    } finally {
      this.accountingRun = null;
    }
  }

  /** A question raised outside this flow (an operator's run, a catalog sync): asked as soon as no step is pending. */
  askAccounting(): void {
    this.startAccounting(true);
  }

  /**
   * Asks the background accounting's questions, one step at a time, each after the flow's current step: the answer
   * goes back to the agent, which hands the voucher over or asks again. `wait`: first let a running accounting end
   * (before the accounting step, and at the flow's end); otherwise the flow goes on meanwhile.
   */
  private async settleAccounting(wait: boolean): Promise<'settled' | 'carry'> {
    for (;;) {
      if (this.accountingRun && wait) await this.accountingRun;
      const open = this.current && isQuestion(this.current) && this.current.status === 'pending' ? this.current : null;
      const question = this.question;
      if (!open && !question) return 'settled';
      let step = open;
      if (!step) {
        this.opening = true;
        const position = AGENT_QUESTION_POSITIONS + this.questionsAsked;
        const opened = await this.exclusive(() =>
          openStep.executeWithOptions({ summary: `Ask ${question!.action} (accounting agent)` }, [
            { ...this.input, position, definition: questionStep(question!), question: question! },
          ]),
        );
        this.questionsAsked += 1;
        this.current = step = opened.step;
        this.opening = false;
      }
      const asked = step;
      this.showWaiting(asked, true);
      await condition(() => asked.status === 'completed' || this.mayCarryOn());
      if (asked.status !== 'completed') return 'carry';
      this.question = null;
      this.startAccounting(true);
      wait = true;
    }
  }

  /** After the flow ended: the accounting that an approval started, settled; or a snapshot to carry on from. */
  async finishAccounting(): Promise<'ended' | LifecycleSnapshot> {
    if ((await this.settleAccounting(true)) === 'carry') return this.carried(this.ended);
    return this.end();
  }

  /** A question of the agent's that the open accounting step keeps from being asked. */
  private questionWaitsOn(step: StepState): boolean {
    return isAccounting(step) && step.status === 'pending' && this.question !== null && !this.busy;
  }

  /** A long history carries on in a fresh run once nothing is being written or accounted. */
  private mayCarryOn(): boolean {
    return workflowInfo().continueAsNewSuggested && !this.busy && !this.accountingRun;
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
      const written = await completeStep.executeWithOptions(
        { summary: `Record the decision of ${command.actor.name || command.actor.email}` },
        [{ ...this.input, ...command, close: closes }],
      );
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
    if (this.accounting === 'due') this.startAccounting(true);
    const done = new Set(snapshot.completedPositions);
    if ((await this.settleAccounting(false)) === 'carry') return this.carried([...done]);
    this.ended = [...done];
    if (snapshot.stoppedByRejection) return this.end();
    for (const [position, definition] of snapshot.flow.entries()) {
      if (done.has(position)) continue;
      if (this.approval === 'rejected') break;
      // The accounting step starts accounting; a question of the agent's is asked before the flow goes on.
      if (isAccounting(definition)) this.startAccounting();
      for (;;) {
        if ((await this.settleAccounting(isAccounting(definition))) === 'carry') return this.carried([...done]);
        if (!this.current || this.current.position !== position) {
          this.opening = true;
          const opened = await this.exclusive(() =>
            openStep.executeWithOptions({ summary: `Open step ${position + 1}: ${definition.action}` }, [
              { ...this.input, position, definition },
            ]),
          );
          this.current = opened.step;
          this.opening = false;
          // `in_review` while an approval step is open; or what the agent decided, when it decided it as it opened.
          this.setApproval(opened.approvalStatus);
        }
        const step = this.current;
        if (this.accountingRegistered && isAccounting(step))
          await this.resolveElsewhere(isAccounting, 'ERP registration');
        // A step may wait for weeks: a long history carries on in a fresh run, still waiting on it. One the agent
        // decided as it opened is completed already: the flow goes straight on.
        this.showWaiting(step, false);
        await condition(() => step.status === 'completed' || this.mayCarryOn() || this.questionWaitsOn(step));
        if (step.status === 'completed') break;
        if (!this.questionWaitsOn(step)) return this.carried([...done]);
        // The voucher waits for a person while the flow waits for the ERP to register it: the accounting step steps
        // aside for the question, and opens again once it is answered.
        await this.exclusive(() => withdrawStep({ ...this.input, stepId: step.id }));
        this.current = null;
      }
      done.add(position);
    }
    if ((await this.settleAccounting(true)) === 'carry') return this.carried([...done]);
    this.ended = [...done];
    return this.end();
  }

  private end(): 'ended' {
    this.current = null;
    setCurrentDetails(`Flow ended; approval ${this.approval}`);
    return 'ended';
  }

  /** Says in the Temporal UI what the flow waits on, and since when (the day this run first saw it wait). */
  private showWaiting(step: StepState, question: boolean): void {
    if (step.status === 'completed') return;
    if (this.waitingSince?.stepId !== step.id) {
      this.waitingSince = { stepId: step.id, at: new Date() };
      // Since release 0.1.0: runs it started replay without the attribute (docs/reliability.md, "Versioning").
      if (patched('waiting-since')) upsertSearchAttributes([{ key: WaitingSince, value: this.waitingSince.at }]);
    }
    setCurrentDetails(waitingOnStep(step, this.snapshot?.flow.length ?? 0, question, this.waitingSince.at));
  }

  private carried(completedPositions: number[]): LifecycleSnapshot {
    return {
      ...this.snapshot!,
      completedPositions,
      openStep: this.current,
      approvalStatus: this.approval,
      accountingRegistered: this.accountingRegistered,
      accounting: this.accounting,
      questionsAsked: this.questionsAsked,
    };
  }

  private setApproval(status: ApprovalStatusValue): void {
    if (status === this.approval) return;
    this.approval = status;
    upsertSearchAttributes([{ key: ApprovalStatus, value: status }]);
    if (status === 'approved') this.startAccounting();
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

const isAccounting = (step: Pick<StepState, 'action'>) => step.action === 'document.accounting';
const isQuestion = (step: Pick<StepState, 'position'>) => step.position >= AGENT_QUESTION_POSITIONS;

/** A question of the agent's, as a classification step of the flow. */
const questionStep = (question: AccountingQuestion) => ({
  action: question.action,
  kind: 'classification' as const,
  fieldName: question.fieldName,
  assignees: question.assignees,
  ...(question.options ? { options: question.options } : {}),
});
