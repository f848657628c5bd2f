import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowIdConflictPolicy,
  WorkflowIdReusePolicy,
} from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  approveUpdate,
  completeStepUpdate,
  type ApproveCommand,
  type CompleteStepCommand,
  type DocumentLifecycleInput,
  type documentLifecycle,
} from '../workflows/document.ts';
import {
  ApprovalStatus,
  CompanyReference,
  DocumentNumber,
  DocumentReference,
  FiscalReference,
} from '../workflows/search-attributes.ts';
import { workflowIds } from '../workflows/ids.ts';
import { beforeDeadline, type TemporalHandle } from './handle.ts';

export interface LifecycleSubject extends DocumentLifecycleInput {
  fiscalReference: string | null;
  documentNumber: string;
  approvalStatus: string;
}

function lifecycleStart(temporal: TemporalHandle, document: LifecycleSubject) {
  return {
    workflowId: workflowIds.document(document.documentId),
    taskQueue: temporal.taskQueue,
    args: [{ companyId: document.companyId, documentId: document.documentId }] as [DocumentLifecycleInput],
    typedSearchAttributes: new TypedSearchAttributes([
      { key: CompanyReference, value: document.companyId },
      { key: DocumentReference, value: document.documentId },
      { key: DocumentNumber, value: document.documentNumber },
      { key: ApprovalStatus, value: document.approvalStatus },
      ...(document.fiscalReference ? [{ key: FiscalReference, value: document.fiscalReference }] : []),
    ]),
  };
}

/** Starts `document/<reference>` once per document: a second call (a retried import) is a no-op. */
export async function startDocumentLifecycle(temporal: TemporalHandle, document: LifecycleSubject): Promise<void> {
  try {
    await beforeDeadline(temporal, () =>
      temporal.client.workflow.start('documentLifecycle', {
        ...lifecycleStart(temporal, document),
        workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      }),
    );
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/**
 * Approves through the document's workflow, so that it serialises with step decisions. Update-with-start: a
 * document whose workflow failed gets a fresh run that resumes from the read state.
 */
export async function approveThroughLifecycle(
  temporal: TemporalHandle,
  document: LifecycleSubject,
  command: ApproveCommand,
) {
  const start = new WithStartWorkflowOperation<typeof documentLifecycle>('documentLifecycle', {
    ...lifecycleStart(temporal, document),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
  });
  return beforeDeadline(temporal, () =>
    temporal.client.workflow.executeUpdateWithStart(approveUpdate, { args: [command], startWorkflowOperation: start }),
  );
}

/**
 * A decision on a step, through the workflow that owns it; the validator refuses what is not allowed. With an
 * `updateId`, a repeated request joins the update of the first one (still being written, or done) instead of being
 * refused as a decision on a step no longer pending.
 */
export async function completeStepThroughLifecycle(
  temporal: TemporalHandle,
  documentId: string,
  command: CompleteStepCommand,
  updateId?: string,
) {
  const handle = temporal.client.workflow.getHandle(workflowIds.document(documentId));
  return beforeDeadline(temporal, () =>
    handle.executeUpdate(completeStepUpdate, { args: [command], ...(updateId ? { updateId } : {}) }),
  );
}
