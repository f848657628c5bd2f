import type { Client } from '@temporalio/client';

/** A Temporal client and the task queue the product's workflows run on. */
export interface TemporalHandle {
  client: Client;
  taskQueue: string;
}

/** How long a request waits on Temporal (a worker taking a command, or a server that hangs) before answering 503. */
const COMMAND_DEADLINE_MS = 20_000;

/** Runs calls to Temporal under the command deadline: past it they fail, and the API answers 503 rather than waiting on. */
export function beforeDeadline<T>(temporal: TemporalHandle, calls: () => Promise<T>): Promise<T> {
  return temporal.client.withDeadline(Date.now() + COMMAND_DEADLINE_MS, calls);
}
