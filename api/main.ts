import { fileStorageFromEnv } from '../activities/storage/file-storage.ts';
import { databaseConfigFromEnv } from '../db/config.ts';
import { initORM } from '../db/orm.ts';
import { createTemporalClient } from '../worker/client.ts';
import { temporalConfigFromEnv } from '../worker/config.ts';
import { createApp } from './app.ts';
import { apiConfigFromEnv } from './config.ts';
import { createLogger } from './logger.ts';
import { createHttpMetrics, serveMetrics } from './metrics.ts';
import { listen } from './server.ts';

const logger = createLogger('api');
const config = apiConfigFromEnv();
const temporalConfig = temporalConfigFromEnv();
const orm = await initORM(databaseConfigFromEnv());
const client = createTemporalClient(temporalConfig);
const metrics = createHttpMetrics();
const app = createApp({ orm, temporal: { client, taskQueue: temporalConfig.taskQueue }, config, logger, storage: fileStorageFromEnv(), metrics });
const running = await listen(app, config);
logger.info({ url: running.url }, 'api listening');
const metricsServer = config.metricsPort === null ? null : await serveMetrics(metrics, config.host, config.metricsPort);
if (metricsServer) logger.info({ port: config.metricsPort }, 'metrics on their own port');

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'api stopping: finishing in-flight requests');
  metricsServer?.close();
  await running.stop();
  await Promise.allSettled([orm.close(), client.connection.close()]);
  logger.info('api stopped');
  process.exit(0);
}
process.once('SIGTERM', () => void shutdown('SIGTERM'));
process.once('SIGINT', () => void shutdown('SIGINT'));
