import type { WorkerDeploymentVersion } from '@temporalio/common';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities/index.ts';
import type { Tracing } from '../platform/tracing.ts';
import { bundleInChildProcess } from './bundle.ts';
import type { TemporalConfig } from '../temporal/config.ts';
import type { WorkerTuning } from './tuning.ts';
import { tracingWorkerOptions } from '../temporal/tracing.ts';

export { WORKFLOWS_PATH } from './bundle.ts';

export interface WorkerSetup {
  config: TemporalConfig;
  deps: ActivityDeps;
  /** A prebuilt workflow bundle (tests build it once for all their workers); else it is built in a child process. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** The SDK's defaults when absent. */
  tuning?: WorkerTuning;
  connection?: NativeConnection;
  /** Set when tracing is on: the workflow and activity interceptors go into the worker (and its bundle). */
  tracing?: Tracing | null;
  /** The build of the Worker Deployment this worker runs; unversioned when absent. */
  version?: WorkerDeploymentVersion | null;
}

/** Creates the worker that runs every workflow and activity of the product on its task queue. */
export async function createWorker(setup: WorkerSetup): Promise<Worker> {
  const connection =
    setup.connection ?? (await NativeConnection.connect({ address: setup.config.address, ...setup.config.security }));
  const tracing = setup.tracing ? tracingWorkerOptions(setup.tracing) : null;
  // Tracing's workflow interceptors are bundled with the workflows; the worker takes its activity ones and sinks.
  const workflowBundle =
    setup.workflowBundle ?? (await bundleInChildProcess(tracing?.interceptors?.workflowModules ?? []));
  return Worker.create({
    connection,
    namespace: setup.config.namespace,
    taskQueue: setup.config.taskQueue,
    workflowBundle,
    activities: createActivities(setup.deps),
    ...(setup.tuning ? { maxCachedWorkflows: setup.tuning.maxCachedWorkflows } : {}),
    // Each workflow type declares its behaviour (workflows/versioning.ts); one that does not is pinned to its build.
    ...(setup.version
      ? {
          workerDeploymentOptions: {
            version: setup.version,
            useWorkerVersioning: true,
            defaultVersioningBehavior: 'PINNED',
          },
        }
      : {}),
    ...(tracing ? { sinks: tracing.sinks, interceptors: { activity: tracing.interceptors?.activity ?? [] } } : {}),
  });
}
