import { Refusal } from '../platform/refusal.ts';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
  WorkflowNotFoundError,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { StepDecisionCommand } from '../domain/step-rules.ts';
import type { StepRecord } from '../db/workflow-steps/step-record.ts';
import type { ApproveCommand, LifecycleSnapshot } from '../services/documents/lifecycle.ts';
import type { LifecycleSubject } from '../services/processes.ts';
import { accountingAskedSignal, approveUpdate, completeStepUpdate, documentLifecycle } from '../workflows/document.ts';
import { workflowIds } from '../workflows/ids.ts';
import {
  ApprovalStatus,
  CompanyReference,
  DocumentNumber,
  DocumentReference,
  FiscalReference,
} from '../workflows/search-attributes.ts';
import { beforeDeadline, type TemporalHandle } from './handle.ts';
import { documentSummary } from './summaries.ts';

/** How `document/<reference>` starts: its input, and the search attributes operators find it by. */
function lifecycleStart(temporal: TemporalHandle, document: LifecycleSubject, position?: LifecycleSnapshot) {
  const input = { companyId: document.companyId, documentId: document.documentId };
  return {
    workflowId: workflowIds.document(document.documentId),
    taskQueue: temporal.taskQueue,
    args: (position ? [input, position] : [input]) as Parameters<typeof documentLifecycle>,
    staticSummary: documentSummary(document),
    typedSearchAttributes: new TypedSearchAttributes([
      { key: CompanyReference, value: document.companyId },
      { key: DocumentReference, value: document.documentId },
      { key: DocumentNumber, value: document.documentNumber },
      { key: ApprovalStatus, value: document.approvalStatus },
      ...(document.fiscalReference ? [{ key: FiscalReference, value: document.fiscalReference }] : []),
    ]),
  };
}

/**
 * Starts a received document's flow, once: a second call (a retried import) finds it started or ended. `position`,
 * where the flow of a document just recorded stands, spares the run its first read.
 */
export async function startDocumentLifecycle(
  temporal: TemporalHandle,
  document: LifecycleSubject,
  position?: LifecycleSnapshot,
): Promise<void> {
  try {
    await beforeDeadline(temporal, () =>
      temporal.client.workflow.start(documentLifecycle, {
        ...lifecycleStart(temporal, document, position),
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** Signal-with-start: the running flow asks the agent's question; an ended one runs again, reads, and asks it. */
export async function askAccounting(temporal: TemporalHandle, document: LifecycleSubject): Promise<void> {
  await beforeDeadline(temporal, () =>
    temporal.client.workflow.signalWithStart(documentLifecycle, {
      ...lifecycleStart(temporal, document),
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
      signal: accountingAskedSignal,
      signalArgs: [],
    }),
  );
}

/**
 * Approves through the document's workflow, so that it serialises with step decisions. Update-with-start: a document
 * whose flow has ended (or whose run failed) gets a new run, which reads where the flow stands before it approves.
 * `running`: the read state shows the flow waiting on a step, so the run is most likely there to take a plain update
 * (it answers sooner: the server took some 25 ms more to hand the update's second workflow task to the worker after
 * an update-with-start); one that is not after all (it failed) gets update-with-start.
 */
export async function approveThroughLifecycle(
  temporal: TemporalHandle,
  document: LifecycleSubject,
  command: ApproveCommand,
  options: { running?: boolean } = {},
) {
  if (options.running) {
    const handle = temporal.client.workflow.getHandle(workflowIds.document(document.documentId));
    try {
      return await beforeDeadline(temporal, () => handle.executeUpdate(approveUpdate, { args: [command] }));
    } catch (error) {
      // No run to take it: the update was never recorded, so it goes with a start.
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  const start = new WithStartWorkflowOperation(documentLifecycle, {
    ...lifecycleStart(temporal, document),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE,
  });
  return beforeDeadline(temporal, () =>
    temporal.client.workflow.executeUpdateWithStart(approveUpdate, { args: [command], startWorkflowOperation: start }),
  );
}

/**
 * A decision on a step, through the workflow that owns it; the validator refuses what is not allowed. With an
 * `updateId`, a repeated request joins the update of the first one (still being written, or done) instead of being
 * refused as a decision on a step no longer pending. Answers the step as the decision left it.
 */
export async function completeStepThroughLifecycle(
  temporal: TemporalHandle,
  documentId: string,
  command: StepDecisionCommand,
  updateId?: string,
): Promise<StepRecord> {
  const handle = temporal.client.workflow.getHandle(workflowIds.document(documentId));
  return beforeDeadline(temporal, () =>
    handle.executeUpdate(completeStepUpdate, { args: [command], ...(updateId ? { updateId } : {}) }),
  );
}

/** A document's flow no longer runs: it has no pending step to decide. */
export const flowEnded = () => new Refusal('step_not_pending', 'The flow of this document is no longer running');
