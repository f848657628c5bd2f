/** Where the Temporal service is, and which namespace and task queue this deployment uses. */
export interface TemporalConfig {
  address: string;
  namespace: string;
  taskQueue: string;
}

export function temporalConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const address = env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (npm start sets it for the embedded default)');
  return {
    address,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
  };
}

/** The one task queue every workflow and activity of the product runs on, unless configured otherwise. */
export const DEFAULT_TASK_QUEUE = 'accounts-payable';

/** How much the worker keeps in memory. */
export interface WorkerTuning {
  /**
   * Workflows kept between their tasks (about 0.4 MB each). An evicted one is replayed from its history when it next
   * has work; most documents' workflows sit idle for days. The SDK's default grows with the heap limit (thousands).
   */
  maxCachedWorkflows: number;
}

export function workerTuningFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerTuning {
  const maxCachedWorkflows = Number(env.WORKER_MAX_CACHED_WORKFLOWS ?? 250);
  if (!Number.isInteger(maxCachedWorkflows) || maxCachedWorkflows < 2) throw new Error('WORKER_MAX_CACHED_WORKFLOWS must be a whole number of workflows, at least 2');
  return { maxCachedWorkflows };
}
