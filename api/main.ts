import { fileStorageFromEnv } from '../platform/storage/file-storage.ts';
import { databaseConfigFromEnv } from '../db/config.ts';
import { initORM } from '../db/orm.ts';
import { createTemporalClient } from '../temporal/connection.ts';
import { temporalConfigFromEnv } from '../temporal/config.ts';
import { tracingClientInterceptors } from '../temporal/tracing.ts';
import { settingsOrExit } from '../platform/required-settings.ts';
import { createApp } from './app.ts';
import { apiConfigFromEnv } from './config.ts';
import { createLogger } from '../platform/logger.ts';
import { createHttpMetrics, serveMetrics } from './metrics.ts';
import { listen } from './server.ts';
import { startTracing } from '../platform/tracing.ts';

const logger = createLogger('api');
// First, so that the SDK's context manager is in place before anything runs under a span.
const tracing = startTracing('accounts-payable-api');
const { config, temporalConfig, databaseConfig, storage } = settingsOrExit('api', logger, () => ({
  config: apiConfigFromEnv(),
  temporalConfig: temporalConfigFromEnv(),
  databaseConfig: databaseConfigFromEnv(),
  storage: fileStorageFromEnv(),
}));
const orm = await initORM(databaseConfig);
const client = createTemporalClient(temporalConfig, tracing ? tracingClientInterceptors() : undefined);
const metrics = createHttpMetrics();
const app = createApp({
  orm,
  temporal: { client, taskQueue: temporalConfig.taskQueue },
  config,
  logger,
  storage,
  metrics,
  ...(tracing ? { tracer: tracing.tracer } : {}),
});
const running = await listen(app, config);
logger.info({ url: running.url, tracing: tracing !== null }, 'api listening');
const metricsServer = config.metricsPort === null ? null : await serveMetrics(metrics, config.host, config.metricsPort);
if (metricsServer) logger.info({ port: config.metricsPort }, 'metrics on their own port');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'api stopping: finishing in-flight requests');
  metricsServer?.close();
  await running.stop();
  // The last spans (those of the requests just finished) are exported before the process ends.
  await Promise.allSettled([orm.close(), client.connection.close(), tracing?.shutdown()]);
  logger.info('api stopped');
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
