import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { FISCAL_SYNC_DURATION_BUCKETS } from '../activities/sync-metrics.ts';
import { outsideSystemsFromEnv } from '../platform/outside-systems.ts';
import { fileStorageFromEnv } from '../platform/storage/file-storage.ts';
import { retryScheduleFromEnv } from '../temporal/webhooks.ts';
import { temporalProcesses } from '../temporal/processes.ts';
import { secretBoxFromEnv } from '../platform/secret-box.ts';
import { dianSettingsFromEnv } from '../services/dian/settings.ts';
import { intakeLimitsFromEnv, satTransferFromEnv } from '../services/fiscal-sync/intake-settings.ts';
import { deploymentFromEnv } from '../platform/deployment.ts';
import { createLogger } from '../platform/logger.ts';
import { startTracing } from '../platform/tracing.ts';
import { databaseConfigFromEnv } from '../db/config.ts';
import { initORM } from '../db/orm.ts';
import { temporalConnectionOptions } from '../temporal/connection.ts';
import { temporalConfigFromEnv } from '../temporal/config.ts';
import { workerTuningFromEnv } from './tuning.ts';
import { paymentDayMsFromEnv, receptionEventSweepMsFromEnv } from '../temporal/timings.ts';
import { scheduleHousekeeping } from '../temporal/housekeeping.ts';
import { registerSearchAttributes } from '../temporal/search-attributes.ts';
import { sdkLogger } from './sdk-logger.ts';
import { outboundPolicyFromEnv } from '../platform/outbound-policy.ts';
import { settingsOrExit } from '../platform/required-settings.ts';
import { tracingClientInterceptors } from '../temporal/tracing.ts';
import { createWorker } from './worker.ts';
import { workerVersionFromEnv } from './versioning.ts';

const logger = createLogger('worker');
// First, so that the SDK's context manager is in place before anything runs under a span.
const tracing = startTracing('accounts-payable-worker');
const WORKER_HISTOGRAM_BUCKETS = { fiscal_sync_duration: FISCAL_SYNC_DURATION_BUCKETS };
// The SDK's own telemetry (workflow and activity task metrics, and ours recorded through the activity meter).
const metricsAddress = process.env.WORKER_METRICS_ADDRESS;
Runtime.install({
  logger: sdkLogger(logger),
  ...(metricsAddress
    ? {
        telemetryOptions: {
          metrics: {
            prometheus: {
              bindAddress: metricsAddress,
              countersTotalSuffix: true,
              useSecondsForDurations: true,
              histogramBucketOverrides: WORKER_HISTOGRAM_BUCKETS,
            },
          },
        },
      }
    : {}),
});
const settings = settingsOrExit('worker', logger, () => ({
  deployment: deploymentFromEnv(),
  version: workerVersionFromEnv(),
  temporal: temporalConfigFromEnv(),
  database: databaseConfigFromEnv(),
  tuning: workerTuningFromEnv(),
  storage: fileStorageFromEnv(),
  secrets: secretBoxFromEnv(),
  webhookRetry: retryScheduleFromEnv(),
  outbound: outboundPolicyFromEnv(),
  outside: outsideSystemsFromEnv(),
  dian: dianSettingsFromEnv(),
  intake: intakeLimitsFromEnv(),
  satTransfer: satTransferFromEnv(),
  sweepMs: receptionEventSweepMsFromEnv(),
  paymentDayMs: paymentDayMsFromEnv(),
}));
const { deployment, temporal: config } = settings;
const orm = await initORM(settings.database);

// Activities start workflows of their own (a document's lifecycle, its webhooks) through a client.
const clientConnection = await Connection.connect(temporalConnectionOptions(config));
const unregistered = await registerSearchAttributes(clientConnection, config.namespace);
if (unregistered)
  logger.warn(
    { searchAttributes: unregistered.notAllowed },
    'this server does not let the worker register search attributes: they must exist in the namespace (WaitingSince a Datetime, the others Keyword)',
  );
const client = new Client({
  connection: clientConnection,
  namespace: config.namespace,
  ...(tracing ? { interceptors: tracingClientInterceptors() } : {}),
});

const temporal = { client, taskQueue: config.taskQueue };
await scheduleHousekeeping(temporal, settings.sweepMs);

const connection = await NativeConnection.connect({ address: config.address, ...config.security });
const worker = await createWorker({
  config,
  connection,
  tuning: settings.tuning,
  tracing,
  version: settings.version,
  deps: {
    orm,
    logger,
    storage: settings.storage,
    processes: temporalProcesses(temporal, settings.webhookRetry),
    publicUrl: deployment.publicUrl,
    secrets: settings.secrets,
    outbound: settings.outbound,
    paymentDayMs: settings.paymentDayMs,
    outside: settings.outside,
    dian: settings.dian,
    intake: settings.intake,
    satTransfer: settings.satTransfer,
  },
});
logger.info(
  {
    taskQueue: config.taskQueue,
    namespace: config.namespace,
    tracing: tracing !== null,
    deployment: settings.version ?? 'unversioned',
  },
  'worker running',
);
// The SDK drains in-flight tasks on SIGINT/SIGTERM before run() resolves.
await worker.run();
await Promise.allSettled([orm.close(), connection.close(), clientConnection.close(), tracing?.shutdown()]);
logger.info('worker stopped');
