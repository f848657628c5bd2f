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
  if (!Number.isInteger(maxCachedWorkflows) || maxCachedWorkflows < 2)
    throw new Error('WORKER_MAX_CACHED_WORKFLOWS must be a whole number of workflows, at least 2');
  return { maxCachedWorkflows };
}
