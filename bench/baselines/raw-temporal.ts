// Baseline: the ceiling for Temporal-backed commands on this machine. The TypeScript client against the same dev
// server, with a worker on SDK defaults that runs trivial workflows. Run as a script, this file is that worker.
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { startAndAwaitAll } from '../stats.ts';
import { timedUpdate, type TimedUpdate } from '../update-stages.ts';
import {
  echoAfterActivityUpdate,
  echoUpdate,
  type echoForever,
  type RawActivities,
  type trivial,
} from './raw-temporal-workflows.ts';

export const RAW_TASK_QUEUE = 'bench-raw-temporal';

export async function rawTemporalClient(address: string): Promise<Client> {
  return new Client({ connection: await Connection.connect({ address }), namespace: 'default' });
}

/**
 * Round trips of `executeUpdate` on a new running workflow, one at a time: answered from memory, or (`afterActivity`)
 * once a no-op activity has run, the command flow's floor.
 */
export async function updateRoundTrips(
  client: Client,
  workflowId: string,
  count: number,
  options: { afterActivity?: boolean } = {},
): Promise<TimedUpdate[]> {
  const handle = await client.workflow.start<typeof echoForever>('echoForever', {
    workflowId,
    taskQueue: RAW_TASK_QUEUE,
  });
  const update = options.afterActivity ? echoAfterActivityUpdate : echoUpdate;
  const calls: TimedUpdate[] = [];
  for (let n = 0; n < count; n++)
    calls.push(await timedUpdate(workflowId, () => handle.executeUpdate(update, { args: [n] })));
  return calls;
}

/** Milliseconds to start `count` trivial workflows (`concurrency` starts in flight) and see every one complete. */
export function startAndComplete(client: Client, prefix: string, count: number, concurrency: number): Promise<number> {
  return startAndAwaitAll(count, concurrency, (n) =>
    client.workflow.start<typeof trivial>('trivial', {
      workflowId: `${prefix}/${n}`,
      taskQueue: RAW_TASK_QUEUE,
      args: [n],
    }),
  );
}

if (import.meta.main) {
  const { NativeConnection, Worker } = await import('@temporalio/worker');
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! }),
    taskQueue: RAW_TASK_QUEUE,
    workflowsPath: fileURLToPath(new URL('./raw-temporal-workflows.ts', import.meta.url)),
    activities: { settle: async (value: number) => value } satisfies RawActivities,
  });
  process.stdout.write('raw worker running\n');
  await worker.run();
}
