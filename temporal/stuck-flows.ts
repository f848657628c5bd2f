import type { TemporalHandle } from './handle.ts';
import { WaitingSince } from '../workflows/search-attributes.ts';

/** A flow waiting on something outside it (a person, an account) since before a given time, and why, in words. */
export interface StuckFlow {
  workflowId: string;
  workflowType: string;
  /** Its static summary: the document or payment it is. */
  summary: string | null;
  /** Its current details: what it waits for. */
  waitingFor: string | null;
  waitingSince: string;
}

/** Most flows read to find the oldest: SQL visibility cannot order by a search attribute, so they are sorted here. */
const MAX_LISTED = 10_000;

/**
 * The running flows that have waited since before `before`, oldest first: the visibility query an operator runs in
 * the Temporal UI (`ExecutionStatus = 'Running' AND WaitingSince < '…'`), with each one's summary and details; one
 * company's alone when `companyId` is given.
 */
export async function stuckFlows(
  temporal: TemporalHandle,
  before: Date,
  limit: number,
  companyId?: string,
): Promise<StuckFlow[]> {
  const company = companyId ? ` AND CompanyReference = '${companyId}'` : '';
  const query = `ExecutionStatus = 'Running' AND WaitingSince < '${before.toISOString()}'${company}`;
  const listed: { workflowId: string; runId: string; workflowType: string; waitingSince: Date }[] = [];
  for await (const execution of temporal.client.workflow.list({ query, pageSize: 1000 })) {
    const waitingSince = execution.typedSearchAttributes.get(WaitingSince);
    if (waitingSince)
      listed.push({
        workflowId: execution.workflowId,
        runId: execution.runId,
        workflowType: execution.type,
        waitingSince,
      });
    if (listed.length >= MAX_LISTED) break;
  }
  const oldest = listed.sort((a, b) => a.waitingSince.getTime() - b.waitingSince.getTime()).slice(0, limit);
  return Promise.all(
    oldest.map(async (flow) => {
      const handle = temporal.client.workflow.getHandle(flow.workflowId, flow.runId);
      const [summary, waitingFor] = await Promise.all([
        handle.describe().then((description) => description.staticSummary()),
        handle
          .query<{ currentDetails?: string }>('__temporal_workflow_metadata')
          .then((metadata) => metadata.currentDetails || null)
          // A flow whose worker cannot answer now is still listed: its summary and since when say enough.
          .catch(() => null),
      ]);
      return {
        workflowId: flow.workflowId,
        workflowType: flow.workflowType,
        summary: summary ?? null,
        waitingFor,
        waitingSince: flow.waitingSince.toISOString(),
      };
    }),
  );
}
