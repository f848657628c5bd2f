import type { Client } from '@temporalio/client';

/** What the Temporal UI shows of a flow: its static summary, and its current details (what it waits for). */
export async function flowInWords(client: Client, workflowId: string): Promise<{ summary?: string; details: string }> {
  const handle = client.workflow.getHandle(workflowId);
  const description = await handle.describe();
  const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
  return { summary: await description.staticSummary(), details: metadata.currentDetails ?? '' };
}

/** The summaries a flow's activities and timers carry in its history, in order. */
export async function eventSummaries(client: Client, workflowId: string): Promise<string[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((event) => {
    const data = event.userMetadata?.summary?.data;
    return data ? [JSON.parse(Buffer.from(data).toString('utf8')) as string] : [];
  });
}
