import { fileURLToPath } from 'node:url';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import type { Tracing } from '../api/tracing.ts';
import type { TemporalConfig } from './config.ts';
import { tracingWorkerOptions } from './tracing.ts';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface WorkerSetup {
  config: TemporalConfig;
  deps: ActivityDeps;
  /** A prebuilt workflow bundle (tests build it once for all their workers). */
  workflowBundle?: WorkerOptions['workflowBundle'];
  connection?: NativeConnection;
  /** Set when tracing is on: the workflow and activity interceptors go into the worker (and its bundle). */
  tracing?: Tracing | null;
}

/** Creates the worker that runs every workflow and activity of the product on its task queue. */
export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  const connection = setup.connection ?? (await NativeConnection.connect({ address: setup.config.address }));
  return Worker.create({
    connection,
    namespace: setup.config.namespace,
    taskQueue: setup.config.taskQueue,
    ...(setup.workflowBundle ? { workflowBundle: setup.workflowBundle } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities(setup.deps),
    ...(setup.tracing ? tracingWorkerOptions(setup.tracing) : {}),
  });
}
