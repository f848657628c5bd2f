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
