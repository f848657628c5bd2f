import { NativeConnection } from '@temporalio/worker';
import { createLogger } from '../api/logger.ts';
import { databaseConfigFromEnv } from '../db/config.ts';
import { initORM } from '../db/orm.ts';
import { temporalConfigFromEnv } from './config.ts';
import { registerSearchAttributes } from './search-attributes.ts';
import { createWorker } from './worker.ts';
import { Connection } from '@temporalio/client';

const logger = createLogger('worker');
const config = temporalConfigFromEnv();
const orm = await initORM(databaseConfigFromEnv());

const admin = await Connection.connect({ address: config.address });
await registerSearchAttributes(admin, config.namespace);
await admin.close();

const connection = await NativeConnection.connect({ address: config.address });
const worker = await createWorker({ config, deps: { orm, logger }, connection });
logger.info({ taskQueue: config.taskQueue, namespace: config.namespace }, 'worker running');
// The SDK drains in-flight tasks on SIGINT/SIGTERM before run() resolves.
await worker.run();
await Promise.allSettled([orm.close(), connection.close()]);
logger.info('worker stopped');
