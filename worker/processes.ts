import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy, type Client } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import type { DocumentLifecycleInput } from '../workflows/document.ts';
import { ApprovalStatus, CompanyReference, DocumentNumber, DocumentReference, FiscalReference } from '../workflows/search-attributes.ts';

/** Workflow ids are business keys, so a repeated start finds the instance instead of making a second one. */
export const workflowIds = {
  document: (documentId: string) => `document/${documentId}`,
};

export interface TemporalHandle {
  client: Client;
  taskQueue: string;
}

/** Starts `document/<reference>` once per document, ever: a second call (a retried import) is a no-op. */
export async function startDocumentLifecycle(
  temporal: TemporalHandle,
  document: DocumentLifecycleInput & { fiscalReference: string | null; documentNumber: string; approvalStatus: string },
): Promise<void> {
  try {
    await temporal.client.workflow.start('documentLifecycle', {
      workflowId: workflowIds.document(document.documentId),
      taskQueue: temporal.taskQueue,
      args: [{ companyId: document.companyId, documentId: document.documentId } satisfies DocumentLifecycleInput],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      typedSearchAttributes: new TypedSearchAttributes([
        { key: CompanyReference, value: document.companyId },
        { key: DocumentReference, value: document.documentId },
        { key: DocumentNumber, value: document.documentNumber },
        { key: ApprovalStatus, value: document.approvalStatus },
        ...(document.fiscalReference ? [{ key: FiscalReference, value: document.fiscalReference }] : []),
      ]),
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}
