import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { outsideSystemsEnv } from '../../platform/outside-systems.ts';
import { initORM } from '../../db/orm.ts';
import { migrateAndSeed } from '../../db/schema.ts';
import { freePort } from '../../platform/ports.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../dev/postgres.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { startDevTemporal, type DevTemporal } from '../../dev/temporal.ts';
import {
  startErpReceiver,
  type ReceivedRequest,
  type RegisteredVoucher,
} from '../../simulators/erp-receiver/server.ts';
import { startSimulators, type RunningSimulators } from '../../simulators/index.ts';
import type { FaultKind } from './faults.ts';
import { productProcess, type ProductProcess } from './product-process.ts';
import { makeSigningAuthority, TEST_DIAN_SOFTWARE, type SigningAuthority } from './signing-certificates.ts';
import { API_NODE_FLAGS } from '../../api/node-flags.ts';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** What an integrator's ERP receiver has seen: every request, the vouchers it registered, the events it saw twice. */
export interface ReceiverState {
  received: ReceivedRequest[];
  /** Document reference → the voucher registered for it. */
  registered: Map<string, RegisteredVoucher>;
  duplicates: number;
}

/** The ERP receiver the company's webhooks are registered to: it checks each signature with `secret`. */
export interface Receiver {
  /** Its webhook URL, as an operator registers it. */
  url: string;
  secret: string;
  state(): Promise<ReceiverState>;
}

/** A part of the product that a fault kills (SIGKILL) and starts again where it stood. */
export interface Part {
  name: string;
  kill: () => Promise<void>;
  start: () => Promise<void>;
}

/**
 * The whole product running, in one shape or another (development: one of each process, the dev server, simulators
 * on loopback; production: replicas, the real Temporal server, simulators on another host): what the load, the
 * faults and the checks need of it.
 */
export interface Stack {
  dir: string;
  /** The API processes, as integrators reach them; clients take turns. */
  apiUrls: string[];
  /** The environment of the product processes, which the operator CLI shares. */
  env: NodeJS.ProcessEnv;
  temporalAddress: string;
  receiver: Receiver;
  /** The authority DIAN's simulator trusts: the company's signing certificate is issued from it. */
  signingAuthority: SigningAuthority;
  /** What faults may kill, by kind: each replica. */
  parts: Partial<Record<FaultKind, Part[]>>;
  /** The API and worker processes under supervision: their own exits are counted. */
  processes: ProductProcess[];
  /** Reads the read state directly, to check what the service promised. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops everything; the directory (logs, data) is kept when asked, to look into a failure. */
  stop(options?: { keep?: boolean }): Promise<void>;
}

/**
 * The development shape, every part restartable where it stood: PostgreSQL on its on-disk cluster and port, the
 * Temporal dev server on its SQLite file and port, and the API and the worker as separate processes. The outside
 * systems (DIAN, an integrator's ERP receiver) are simulators in the harness's own process.
 */
export interface FaultStack extends Stack {
  apiUrl: string;
  database: EmbeddedDatabase;
  temporal: DevTemporal;
  api: ProductProcess;
  worker: ProductProcess;
}

/** The pacing a fault run needs: short retry and poll waits, and enough DIAN attempts to outlast a database restart. */
export const FAST_PACING: Record<string, string> = {
  WEBHOOK_RETRY_INITIAL_MS: '200',
  WEBHOOK_RETRY_MAX_MS: '2000',
  RECEPTION_EVENT_WAIT_MS: '500',
  RECEPTION_EVENT_WAIT_MAX_MS: '2000',
  RECEPTION_EVENT_RETRY_MS: '250',
  RECEPTION_EVENT_RETRY_MAX_MS: '5000',
  RECEPTION_EVENT_ATTEMPTS: '30',
  // A batch whose workflow could not be started (Temporal down) is handed over within seconds of its return.
  RECEPTION_EVENT_SWEEP_MS: '2000',
  PAYMENT_POLL_INTERVAL_MS: '500',
  BANK_VALIDATION_POLL_INTERVAL_MS: '500',
};

/** `env` adds to (or overrides) the product processes' environment, e.g. a shorter payment day. */
export async function startFaultStack(options: { env?: Record<string, string> } = {}): Promise<FaultStack> {
  const dir = tempDir('ap-faults-');
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const stops: (() => Promise<void>)[] = [];
  try {
    const [database, temporal] = await Promise.all([
      startEmbeddedPostgres({ dataDir: join(dir, 'postgres') }),
      startDevTemporal({ dbFile: join(dir, 'temporal', 'temporal.db') }),
    ]);
    stops.push(
      () => database.stop(),
      () => temporal.stop(),
    );
    const orm = await initORM({ url: database.url, poolMax: 2, statementTimeoutMs: 60_000, debug: false });
    try {
      await migrateAndSeed(orm);
    } finally {
      await orm.close();
    }

    const signingAuthority = makeSigningAuthority(join(dir, 'signing-authority'));
    const simulators: RunningSimulators = await startSimulators({
      dian: { software: { [TEST_DIAN_SOFTWARE.id]: TEST_DIAN_SOFTWARE.pin }, trustedCas: [signingAuthority.ca] },
    });
    stops.push(() => simulators.stop());
    const receiverSecret = randomBytes(18).toString('hex');
    const receiver = await startErpReceiver({ secret: receiverSecret });
    stops.push(() => receiver.stop());

    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: apiUrl,
      DATABASE_URL: database.url,
      DATABASE_POOL_MAX: '8',
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      TEMPORAL_TASK_QUEUE: 'accounts-payable',
      STORAGE_DIR: join(dir, 'files'),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      ...FAST_PACING,
      ...outsideSystemsEnv(simulators.urls),
      DIAN_SOFTWARE_ID: TEST_DIAN_SOFTWARE.id,
      DIAN_SOFTWARE_PIN: TEST_DIAN_SOFTWARE.pin,
      ...options.env,
    };
    const api = productProcess({
      name: 'api',
      script: join(REPO, 'api/main.ts'),
      nodeFlags: API_NODE_FLAGS,
      env,
      readyLine: 'api listening',
      logFile: join(logs, 'api.log'),
    });
    const worker = productProcess({
      name: 'worker',
      script: join(REPO, 'worker/main.ts'),
      nodeFlags: WORKER_NODE_FLAGS,
      env,
      readyLine: 'worker running',
      logFile: join(logs, 'worker.log'),
    });
    stops.push(
      () => worker.stop(),
      () => api.stop(),
    );
    await Promise.all([worker.start(), api.start()]);

    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // PostgreSQL is killed on purpose: a dropped idle connection is expected, not a failure of the harness.
    pool.on('error', () => {});
    stops.push(() => pool.end());

    return {
      dir,
      apiUrl,
      apiUrls: [apiUrl],
      database,
      temporal,
      temporalAddress: temporal.address,
      signingAuthority,
      api,
      worker,
      parts: {
        api: [api],
        worker: [worker],
        temporal: [{ name: 'temporal', kill: temporal.kill, start: temporal.start }],
        postgres: [{ name: 'postgres', kill: database.kill, start: database.start }],
      },
      processes: [api, worker],
      receiver: {
        url: `${receiver.url}/erp`,
        secret: receiverSecret,
        state: async () => ({
          received: [...receiver.received],
          registered: new Map(receiver.registered),
          duplicates: receiver.duplicates,
        }),
      },
      env,
      query: async (sql, params) => (await pool.query(sql, params)).rows,
      async stop(options = {}) {
        for (const stop of stops.reverse()) await stop().catch(() => {});
        if (!options.keep) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
