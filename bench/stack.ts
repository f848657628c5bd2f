// The product in one of two shapes, each in a fresh temporary directory with processes whose memory can be read:
// `dev`, as `npm start` runs it (embedded PostgreSQL, the Temporal dev server, the simulators), with the API and the
// worker as production processes; `production`, as the production-shape suite deploys it (the real Temporal server on
// PostgreSQL, two APIs and two workers, the outside systems on another address), from that suite's own launcher.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { outboundPolicyFromEnv, type OutboundPolicy } from '../platform/outbound-policy.ts';
import { outsideSystemsEnv } from '../platform/outside-systems.ts';
import { secretBox, type SecretBox } from '../platform/secret-box.ts';
import { initORM, type Orm } from '../db/orm.ts';
import { migrateAndSeed } from '../db/schema.ts';
import { freePort } from '../platform/ports.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../dev/postgres.ts';
import { startDevTemporal, type DevTemporal } from '../dev/temporal.ts';
import { startErpReceiver } from '../simulators/erp-receiver/server.ts';
import { startSimulators, type RunningSimulators } from '../simulators/index.ts';
import {
  makeSigningAuthority,
  TEST_DIAN_SOFTWARE,
  type SigningAuthority,
} from '../test/harness/signing-certificates.ts';
import type { ProductProcess } from '../test/harness/product-process.ts';
import { startProductionStack, type ProductionStack } from '../test/harness/production-stack.ts';
import { API_NODE_FLAGS } from '../api/node-flags.ts';
import { WORKER_ENVIRONMENT, WORKER_NODE_FLAGS } from '../worker/node-flags.ts';

/** A process of the product (or of a baseline) started by the benchmark, with its log file. */
export interface BenchProcess {
  name: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export type BenchShape = 'dev' | 'production';

/** The shape `BENCH_SHAPE` names: `dev` (the default) or `production`. */
export function benchShape(value = 'dev'): BenchShape {
  if (value === 'dev' || value === 'production') return value;
  throw new Error(`BENCH_SHAPE=${value}: the shapes are dev and production`);
}

/** The kinds of product process whose memory the bench holds to a limit. */
export type ProcessKind = 'api' | 'worker';

/** What both shapes provide to the scenarios. */
export interface BenchStack {
  shape: BenchShape;
  dir: string;
  databaseUrl: string;
  temporalAddress: string;
  /** The first API, where requests taken one at a time go. */
  apiUrl: string;
  api: BenchProcess;
  /** Every API: HTTP loads spread their connections over them (bench/load.ts). */
  apiUrls: string[];
  /** The API and worker processes running now, by kind (a restarted one has a new pid). */
  processIds(): Record<ProcessKind, number[]>;
  /** What points a product process (the operator CLI, say) at this stack. */
  env: NodeJS.ProcessEnv;
  /** The bench's own ORM on the same database (seeding, subscriptions, query plans). */
  orm: Orm;
  secrets: SecretBox;
  /** The authority DIAN's simulator trusts: companies' signing certificates are issued from it. */
  signingAuthority: SigningAuthority;
  /** The ERP receiver webhooks go to, and the outbound policy a subscription to it is registered under. */
  erp: { receiver: { url: string }; secret: string; outbound: OutboundPolicy };
  /** The production-shape suite's stack, for what only that shape has (its workers to stop and start). */
  production?: ProductionStack;
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
      { ...env, ...WORKER_ENVIRONMENT, NODE_ENV: 'development' },
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
      shape: 'dev',
      dir: options.dir,
      databaseUrl: db.url,
      signingAuthority,
      temporalAddress: temporal.address,
      apiUrl,
      api,
      apiUrls: [apiUrl],
      processIds: () => ({ api: [api.pid], worker: [worker.pid] }),
      env,
      orm,
      secrets: secretBox(Buffer.from(secretKey, 'hex')),
      // The simulated ERP listens on loopback, which only a development subscription may name.
      erp: { receiver, secret, outbound: outboundPolicyFromEnv({ NODE_ENV: 'development' }) },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The product processes of the production shape that run now. */
const running = (replicas: readonly ProductProcess[]) =>
  replicas.flatMap((replica) => (replica.pid === undefined ? [] : [replica.pid]));

/** One of the production shape's APIs as the scenarios see it; it is never stopped while they run. */
function benchProcess(replica: ProductProcess): BenchProcess {
  return {
    name: replica.name,
    get pid() {
      if (replica.pid === undefined) throw new Error(`${replica.name} is not running`);
      return replica.pid;
    },
    stop: () => replica.stop(),
  };
}

/**
 * The production shape, started by the production-shape suite's launcher with the operator's defaults (no short
 * pacing) and without the per-key rate limit, for the reason the dev shape drops it.
 */
export async function startProductionShape(options: StackOptions): Promise<BenchStack> {
  options.log('starting the production shape: PostgreSQL, the Temporal server, 2 APIs and 2 workers');
  const production = await startProductionStack({
    dir: options.dir,
    settings: { RATE_LIMIT_PER_MINUTE: '0' },
    nodeFlags: options.nodeFlags ?? [],
  });
  try {
    const { productEnv } = production;
    const orm = await initORM({ url: productEnv.DATABASE_URL, poolMax: 4, statementTimeoutMs: 600_000, debug: false });
    return {
      shape: 'production',
      dir: production.dir,
      databaseUrl: productEnv.DATABASE_URL,
      temporalAddress: production.temporalAddress,
      apiUrl: production.apiUrls[0]!,
      api: benchProcess(production.apis[0]!),
      apiUrls: production.apiUrls,
      processIds: () => ({ api: running(production.apis), worker: running(production.workers) }),
      // The product stores files in the simulated object store; the bench's in-process API (bench/query-log.ts)
      // needs a directory of its own, which it never writes to.
      env: { ...production.env, STORAGE_DIR: join(production.dir, 'observed-files') },
      orm,
      secrets: secretBox(Buffer.from(productEnv.WEBHOOK_SECRET_KEY, 'hex')),
      signingAuthority: production.signingAuthority,
      // The receiver is on the namespace's address, behind https: the allowlisted network of the product's policy.
      erp: {
        receiver: { url: production.receiver.url },
        secret: production.receiver.secret,
        outbound: outboundPolicyFromEnv(productEnv),
      },
      production,
      async stop() {
        await orm.close().catch(() => undefined);
        // The bench removes its directory itself, unless asked to keep it.
        await production.stop({ keep: true });
      },
    };
  } catch (error) {
    await production.stop({ keep: true });
    throw error;
  }
}

/** Starts the product in the given shape. */
export const startBenchStack = (shape: BenchShape, options: StackOptions): Promise<BenchStack> =>
  shape === 'production' ? startProductionShape(options) : startStack(options);
