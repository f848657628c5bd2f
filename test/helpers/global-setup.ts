// Starts what the whole suite shares: one embedded PostgreSQL (migrated from empty), one Temporal dev server,
// and one worker with the product's workflows and activities. Each test file makes its own company.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { tempDir } from '../../platform/temp-dir.ts';
import { Client, Connection } from '@temporalio/client';
import { testActivityDeps } from './activity-deps.ts';
import { HISTORIES_DIR, recordHistories } from './recorded-histories.ts';
import type { OutsideSystems } from '../../platform/outside-systems.ts';
import { startSimulators, type RunningSimulators } from '../../simulators/index.ts';
import { makeSigningAuthority, TEST_DIAN_SOFTWARE, type SigningAuthority } from '../harness/signing-certificates.ts';
import { initORM, type Orm } from '../../db/orm.ts';
import { migrateAndSeed } from '../../db/schema.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../dev/postgres.ts';
import { startDevTemporal, type DevTemporal } from '../../dev/temporal.ts';
import { scheduleHousekeeping } from '../../temporal/housekeeping.ts';
import { WORKFLOWS_PATH, createWorker } from '../../worker/worker.ts';
import { watchSuiteHealth } from './suite-health.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    temporalAddress: string;
    taskQueue: string;
    postgresDataDir: string;
    storageDir: string;
    publicUrl: string;
    /** The simulators of the outside systems, shared by the suite (steer them per company or reference). */
    outside: OutsideSystems;
    /** The test authority whose certificates DIAN's simulator trusts: tests issue companies' certificates from it. */
    signingAuthority: SigningAuthority;
  }
}

const TASK_QUEUE = 'accounts-payable-test';

let dataDir: string;
let db: EmbeddedDatabase;
let temporal: DevTemporal;
let orm: Orm;
let worker: Worker;
let running: Promise<void>;
let clientConnection: Connection | undefined;
let client: Client | undefined;
let simulators: RunningSimulators | undefined;
let health: ReturnType<typeof watchSuiteHealth> | undefined;

/** Links stored by the worker point here; tests compare paths, not hosts. */
const TEST_PUBLIC_URL = 'http://api.test';

export async function setup(project: TestProject): Promise<void> {
  try {
    await start(project);
  } catch (error) {
    await teardown();
    throw error;
  }
}

async function start(project: TestProject): Promise<void> {
  dataDir = tempDir('ap-test-');
  Runtime.install({ logger: new DefaultLogger('WARN') });
  [db, temporal] = await Promise.all([
    startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres') }),
    startDevTemporal({
      build: (line) => process.stdout.write(`${line}\n`),
      onLog: (chunk) => chunk.split('\n').forEach((line) => health?.serverLogged(line)),
    }),
  ]);
  orm = await initORM({ url: db.url, poolMax: 10, statementTimeoutMs: 30_000, debug: false });
  await migrateAndSeed(orm);
  const signingAuthority = makeSigningAuthority(join(dataDir, 'signing-authority'));
  simulators = await startSimulators({
    dian: { software: { [TEST_DIAN_SOFTWARE.id]: TEST_DIAN_SOFTWARE.pin }, trustedCas: [signingAuthority.ca] },
  });
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    logger: new DefaultLogger('ERROR'),
  });
  const connection = await NativeConnection.connect({ address: temporal.address });
  clientConnection = await Connection.connect({ address: temporal.address });
  client = new Client({ connection: clientConnection, namespace: 'default' });
  health = watchSuiteHealth({ orm, temporal: clientConnection, dataDir });
  worker = await createWorker({
    config: { address: temporal.address, namespace: 'default', taskQueue: TASK_QUEUE, security: {} },
    deps: testActivityDeps({
      orm,
      client,
      taskQueue: TASK_QUEUE,
      storageDir: join(dataDir, 'files'),
      publicUrl: TEST_PUBLIC_URL,
      outside: simulators.urls,
    }),
    connection,
    workflowBundle,
  });
  running = worker.run();
  await scheduleHousekeeping({ client, taskQueue: TASK_QUEUE }, 60_000);

  project.provide('databaseUrl', db.url);
  project.provide('temporalAddress', temporal.address);
  project.provide('taskQueue', TASK_QUEUE);
  project.provide('postgresDataDir', join(dataDir, 'postgres'));
  project.provide('storageDir', join(dataDir, 'files'));
  project.provide('publicUrl', TEST_PUBLIC_URL);
  project.provide('outside', simulators.urls);
  project.provide('signingAuthority', signingAuthority);
}

export async function teardown(): Promise<void> {
  if (process.env.RECORD_HISTORIES === '1' && client) {
    const written = await recordHistories(client, Object.keys(await import('../../workflows/index.ts')));
    process.stdout.write(`recorded ${written} workflow histories in ${HISTORIES_DIR}\n`);
  }
  health?.stop();
  worker?.shutdown();
  await running?.catch(() => {});
  await clientConnection?.close();
  await orm?.close();
  await temporal?.stop();
  await simulators?.stop();
  await db?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
