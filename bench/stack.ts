// The product as `npm start` runs it (embedded PostgreSQL, the Temporal dev server, the simulators), but in a
// fresh temporary directory and with the API and the worker as production processes whose memory can be read.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { outsideSystemsEnv } from '../platform/outside-systems.ts';
import { secretBox, type SecretBox } from '../platform/secret-box.ts';
import { initORM, type Orm } from '../db/orm.ts';
import { migrateAndSeed } from '../db/schema.ts';
import { freePort } from '../platform/ports.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../dev/postgres.ts';
import { startDevTemporal, type DevTemporal } from '../dev/temporal.ts';
import { startErpReceiver, type ErpReceiver } from '../simulators/erp-receiver/server.ts';
import { startSimulators, type RunningSimulators } from '../simulators/index.ts';
import {
  makeSigningAuthority,
  TEST_DIAN_SOFTWARE,
  type SigningAuthority,
} from '../test/harness/signing-certificates.ts';
import { API_NODE_FLAGS } from '../api/node-flags.ts';
import { WORKER_NODE_FLAGS } from '../worker/node-flags.ts';

/** A process of the product (or of a baseline) started by the benchmark, with its log file. */
export interface BenchProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

export interface BenchStack {
  dir: string;
  databaseUrl: string;
  temporalAddress: string;
  apiUrl: string;
  api: BenchProcess;
  worker: BenchProcess;
  /** What points a product process (the operator CLI, say) at this stack. */
  env: NodeJS.ProcessEnv;
  /** The bench's own ORM on the same database (seeding, subscriptions, query plans). */
  orm: Orm;
  secrets: SecretBox;
  /** The authority DIAN's simulator trusts: companies' signing certificates are issued from it. */
  signingAuthority: SigningAuthority;
  erp: { receiver: ErpReceiver; secret: string };
  stop(): Promise<void>;
}

export interface StackOptions {
  dir: string;
  /** Extra node flags for the API and the worker, e.g. --cpu-prof. */
  nodeFlags?: string[];
  log: (line: string) => void;
}

/** Spawns `node <script>` with its output in `<dir>/logs/<name>.log`; resolves once `ready` says so. */
export async function spawnProcess(
  dir: string,
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: (output: string) => boolean | Promise<boolean>,
): Promise<BenchProcess> {
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const log = createWriteStream(join(dir, 'logs', `${name}.log`), { flags: 'a' });
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let exited = false;
  child.stdout.on('data', (chunk: Buffer) => {
    log.write(chunk);
    if (output.length < 64_000) output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    log.write(chunk);
    if (output.length < 64_000) output += chunk.toString();
  });
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + 90_000;
  while (!(await ready(output))) {
    if (exited)
      throw new Error(
        `${name} exited before it was ready; see ${join(dir, 'logs', `${name}.log`)}\n${output.slice(-2000)}`,
      );
    if (Date.now() > deadline) throw new Error(`${name} was not ready within 90 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    name,
    pid: child.pid!,
    child,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => (clearTimeout(force), log.end(), resolve()));
        child.kill('SIGTERM');
      }),
  };
}

export const answers = (url: string) => async () => {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
};

/** Starts the databases, the simulators, and the API and worker processes in production mode. */
export async function startStack(options: StackOptions): Promise<BenchStack> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch(() => undefined);
  };
  try {
    options.log('starting embedded PostgreSQL and the Temporal dev server');
    const [db, temporal]: [EmbeddedDatabase, DevTemporal] = await Promise.all([
      startEmbeddedPostgres({ dataDir: join(options.dir, 'postgres') }),
      // In memory, as the test suite runs it: the figures are of the product, not of SQLite's disk writes.
      startDevTemporal(),
    ]);
    stops.push(
      () => db.stop(),
      () => temporal.stop(),
    );
    const orm = await initORM({ url: db.url, poolMax: 4, statementTimeoutMs: 600_000, debug: false });
    stops.push(() => orm.close());
    await migrateAndSeed(orm);

    // DIAN's simulator trusts the bench's own authority, from which the Colombian company's certificate is issued.
    const signingAuthority = makeSigningAuthority(join(options.dir, 'signing-authority'));
    const simulators: RunningSimulators = await startSimulators({
      dian: { software: { [TEST_DIAN_SOFTWARE.id]: TEST_DIAN_SOFTWARE.pin }, trustedCas: [signingAuthority.ca] },
    });
    stops.push(() => simulators.stop());
    const secret = randomBytes(24).toString('base64url');
    const receiver = await startErpReceiver({ secret });
    stops.push(() => receiver.stop());

    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const secretKey = randomBytes(32).toString('hex');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ...outsideSystemsEnv(simulators.urls),
      DIAN_SOFTWARE_ID: TEST_DIAN_SOFTWARE.id,
      DIAN_SOFTWARE_PIN: TEST_DIAN_SOFTWARE.pin,
      NODE_ENV: 'production',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: temporal.address,
      PORT: String(port),
      PUBLIC_URL: apiUrl,
      STORAGE_DIR: join(options.dir, 'files'),
      WEBHOOK_SECRET_KEY: secretKey,
      // The load comes from one key on loopback: the per-key rate limit would measure itself, not the API.
      RATE_LIMIT_PER_MINUTE: '0',
    };
    const flags = options.nodeFlags ?? [];
    options.log('starting the worker and the API (NODE_ENV=production)');
    // Production refuses webhook receivers on loopback, where the simulated ERP listens; nothing else in the worker
    // depends on NODE_ENV, so it runs as development.
    const worker = await spawnProcess(
      options.dir,
      'worker',
      [...flags, ...WORKER_NODE_FLAGS, 'worker/main.ts'],
      { ...env, NODE_ENV: 'development' },
      (output) => output.includes('worker running'),
    );
    stops.push(() => worker.stop());
    const api = await spawnProcess(
      options.dir,
      'api',
      [...flags, ...API_NODE_FLAGS, 'api/main.ts'],
      env,
      answers(`${apiUrl}/healthz`),
    );
    stops.push(() => api.stop());

    return {
      dir: options.dir,
      databaseUrl: db.url,
      signingAuthority,
      temporalAddress: temporal.address,
      apiUrl,
      api,
      worker,
      env,
      orm,
      secrets: secretBox(Buffer.from(secretKey, 'hex')),
      erp: { receiver, secret },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
