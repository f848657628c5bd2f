import { WithStartWorkflowOperation, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  beginFiscalSyncUpdate,
  type FiscalSyncBegun,
  type FiscalSyncInput,
  fiscalSync,
} from '../workflows/fiscal-sync.ts';
import { CompanyReference } from '../workflows/search-attributes.ts';
import { beforeDeadline, type TemporalHandle } from './handle.ts';
import { workflowIds } from '../workflows/ids.ts';
import { summaries } from './summaries.ts';

/** `fiscal-sync/<companyRef>/<startedAt>`: one workflow per accepted POST /fiscal-sync. */

/**
 * Starts a sync's workflow and waits for its first step (update-with-start): the SAT extraction created, or DIAN's
 * token requested. Resolves with the extraction id; a refusal of the outside system arrives as a failed update (refusalOf reads it).
 */
export async function beginFiscalSync(temporal: TemporalHandle, input: FiscalSyncInput): Promise<FiscalSyncBegun> {
  const start = new WithStartWorkflowOperation(fiscalSync, {
    workflowId: workflowIds.fiscalSync(input.companyId, input.startedAt),
    taskQueue: temporal.taskQueue,
    args: [input],
    staticSummary: summaries.fiscalSync(input.country),
    typedSearchAttributes: new TypedSearchAttributes([{ key: CompanyReference, value: input.companyId }]),
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  });
  return beforeDeadline(temporal, () =>
    temporal.client.workflow.executeUpdateWithStart(beginFiscalSyncUpdate, { args: [], startWorkflowOperation: start }),
  );
}
