import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Agent, fetch } from 'undici';
import { API_NODE_FLAGS } from '../../api/node-flags.ts';
import { startEmbeddedPostgres } from '../../dev/postgres.ts';
import { freePort } from '../../platform/ports.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import type { ReceivedRequest, RegisteredVoucher } from '../../simulators/erp-receiver/server.ts';
import { WORKER_ENVIRONMENT, WORKER_NODE_FLAGS } from '../../worker/node-flags.ts';
import { makeServerCertificate } from './certificates.ts';
import { makeSigningAuthority, TEST_DIAN_SOFTWARE } from './signing-certificates.ts';
import { createNetworkNamespace, type NetworkNamespace } from './network-namespace.ts';
import { productProcess, type ProductProcess } from './product-process.ts';
import { FAST_PACING, type Stack } from './stack.ts';
import { startTemporalServer, temporalServerBinaries, type TemporalServer } from './temporal-server.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const node = process.execPath;

/** The variables the suite gives the API and worker processes as an operator would: docker-compose.yml sets the same. */
export const PRODUCT_VARIABLES = [
  'NODE_ENV',
  'LOG_LEVEL',
  'HOST',
  'PORT',
  'PUBLIC_URL',
  'DATABASE_URL',
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'WEBHOOK_SECRET_KEY',
  'OUTBOUND_ALLOWED_NETWORKS',
  'NODE_EXTRA_CA_CERTS',
  'PAYMENT_GATEWAY_URL',
  'BANK_VALIDATION_URL',
  'DIAN_URL',
  'DIAN_ENVIRONMENT',
  'DIAN_SOFTWARE_ID',
  'DIAN_SOFTWARE_PIN',
  'DIAN_AUTH_URL',
  'SAT_PROVIDER_URL',
  'DIAN_MAILBOX_DIR',
  'STORAGE_S3_BUCKET',
  'STORAGE_S3_ENDPOINT',
  'STORAGE_S3_REGION',
  'STORAGE_S3_ACCESS_KEY_ID',
  'STORAGE_S3_SECRET_ACCESS_KEY',
  'STORAGE_S3_FORCE_PATH_STYLE',
  'WORKER_BUILD_ID',
] as const;
type ProductVariable = (typeof PRODUCT_VARIABLES)[number];

/** What the suite sets besides, only to make a run short (retry and poll pacing, pool sizes): an operator keeps the defaults. */
const PACING: Record<string, string> = {
  ...FAST_PACING,
  DATABASE_POOL_MAX: '6',
};

/** The variables of deploy/postgres-init.sh, which compose's postgres service sets too. */
export const POSTGRES_INIT_VARIABLES = ['APP_POSTGRES_PASSWORD', 'TEMPORAL_POSTGRES_PASSWORD'] as const;

/** The outside systems as the simulators process reports them, on the namespace's address. */
interface SimulatorUrls {
  paymentGatewayUrl: string;
  bankValidationUrl: string;
  dianUrl: string;
  satProviderUrl: string;
  dianAuthUrl: string;
  dianMailboxDir: string;
  erpReceiverUrl: string;
  objectStorageUrl: string;
}

/** The API and worker processes of one release of the product, as a rolling deploy runs them beside another. */
export interface ReleaseProcesses {
  /** The release's checkout: its code runs, with the stack's environment. */
  checkout: string;
  /** Its workers' build of the Worker Deployment. */
  buildId: string;
  apis: ProductProcess[];
  apiUrls: string[];
  workers: ProductProcess[];
}

export interface ProductionStack extends Stack {
  namespace: NetworkNamespace;
  temporal: TemporalServer;
  apis: ProductProcess[];
  workers: ProductProcess[];
  /** Starts another release's APIs and workers (two of each) beside the running ones; they run until `stop`. */
  startRelease(checkout: string): Promise<ReleaseProcesses>;
  /** Runs a release's migrations against the stack's database. */
  migrate(checkout: string): Promise<void>;
  /** Runs the `temporal` CLI against the stack's server; answers its standard output. */
  temporalCli(...args: string[]): Promise<string>;
  /** The environment of one product process as an operator would write it (without the pacing), for checks. */
  productEnv: Record<ProductVariable, string>;
}

const REPLICAS = 2;

export interface ProductionStackOptions {
  /** Where its data and logs go; a new temporary directory by default. */
  dir?: string;
  /** Set besides the operator's variables: the suite's short pacing by default; a benchmark keeps the defaults. */
  settings?: Record<string, string>;
  /** Node options for the API and worker processes besides their own (a benchmark's CPU profiles). */
  nodeFlags?: readonly string[];
  /** The checkout whose product runs first (an earlier release, for an upgrade); this one by default. */
  release?: string;
}

/**
 * The product as docker-compose.yml deploys it, without Docker: PostgreSQL reached only through DATABASE_URL with
 * its own role; the real Temporal server on PostgreSQL, set up by the deploy scripts; two API and two worker processes
 * with NODE_ENV=production and the secrets an operator sets; the outside systems on a non-loopback address in a
 * network namespace of the suite's own, the ERP receiver behind https with a private CA the product is told to trust,
 * and that network allowlisted for webhooks.
 */
export async function startProductionStack(options: ProductionStackOptions = {}): Promise<ProductionStack> {
  const dir = options.dir ?? tempDir('ap-production-');
  const first = options.release ?? REPO;
  const logs = join(dir, 'logs');
  mkdirSync(logs, { recursive: true });
  const stops: (() => Promise<void> | void)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await Promise.resolve(stop()).catch(() => {});
  };
  try {
    const namespace = createNetworkNamespace();
    stops.push(() => namespace.remove());
    // A test process killed outright leaves it behind; the next run removes it, this covers ordinary exits.
    process.once('exit', () => namespace.remove());

    const password = () => randomBytes(18).toString('base64url');
    const database = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres'), database: 'postgres' });
    stops.push(() => database.stop());
    const roles = { product: password(), temporal: password() };
    const superuser = new URL(database.url);
    await runToEnd(
      'sh',
      [join(REPO, 'deploy/postgres-init.sh')],
      {
        PATH: process.env.PATH ?? '',
        PGHOST: superuser.hostname,
        PGPORT: superuser.port,
        PGPASSWORD: decodeURIComponent(superuser.password),
        POSTGRES_USER: decodeURIComponent(superuser.username),
        POSTGRES_DB: 'postgres',
        APP_POSTGRES_PASSWORD: roles.product,
        TEMPORAL_POSTGRES_PASSWORD: roles.temporal,
      } satisfies Record<(typeof POSTGRES_INIT_VARIABLES)[number], string> & NodeJS.ProcessEnv,
      join(logs, 'postgres-init.log'),
    );
    const databaseUrl = `postgres://accounts_payable:${roles.product}@127.0.0.1:${database.port}/accounts_payable`;

    const certificates = makeServerCertificate(dir, namespace.address);
    const receiverSecret = randomBytes(18).toString('hex');
    const storage = {
      bucket: 'accounts-payable-files',
      accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
      secretAccessKey: password(),
    };
    const mailboxDir = join(dir, 'dian-mailbox');
    const signingAuthority = makeSigningAuthority(join(dir, 'signing-authority'));
    const [urls, temporal] = await Promise.all([
      startSimulatorsIn(namespace, {
        args: [
          '--erp-secret',
          receiverSecret,
          '--erp-tls-cert',
          certificates.certFile,
          '--erp-tls-key',
          certificates.keyFile,
          '--storage-bucket',
          storage.bucket,
          '--storage-access-key-id',
          storage.accessKeyId,
          '--storage-secret-access-key',
          storage.secretAccessKey,
          '--dian-software-id',
          TEST_DIAN_SOFTWARE.id,
          '--dian-software-pin',
          TEST_DIAN_SOFTWARE.pin,
          '--dian-trusted-ca',
          join(signingAuthority.dir, 'ca.pem'),
        ],
        mailboxDir,
        logFile: join(logs, 'simulators.log'),
        stops,
      }),
      startTemporalServer({
        dir: join(dir, 'temporal'),
        database: { host: '127.0.0.1', port: database.port, user: 'temporal', password: roles.temporal },
        logFile: join(logs, 'temporal.log'),
      }),
    ]);
    stops.push(() => temporal.stop());

    const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
    const apiUrls = ports.map((port) => `http://127.0.0.1:${port}`);
    const productEnv: Record<ProductVariable, string> = {
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PORT: String(ports[0]),
      PUBLIC_URL: apiUrls[0]!,
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: temporal.address,
      TEMPORAL_NAMESPACE: 'default',
      WEBHOOK_SECRET_KEY: randomBytes(32).toString('hex'),
      OUTBOUND_ALLOWED_NETWORKS: namespace.network,
      NODE_EXTRA_CA_CERTS: certificates.caFile,
      PAYMENT_GATEWAY_URL: urls.paymentGatewayUrl,
      BANK_VALIDATION_URL: urls.bankValidationUrl,
      DIAN_URL: urls.dianUrl,
      DIAN_ENVIRONMENT: 'habilitacion',
      DIAN_SOFTWARE_ID: TEST_DIAN_SOFTWARE.id,
      DIAN_SOFTWARE_PIN: TEST_DIAN_SOFTWARE.pin,
      DIAN_AUTH_URL: urls.dianAuthUrl,
      SAT_PROVIDER_URL: urls.satProviderUrl,
      DIAN_MAILBOX_DIR: mailboxDir,
      STORAGE_S3_BUCKET: storage.bucket,
      STORAGE_S3_ENDPOINT: urls.objectStorageUrl,
      STORAGE_S3_REGION: 'us-east-1',
      STORAGE_S3_ACCESS_KEY_ID: storage.accessKeyId,
      STORAGE_S3_SECRET_ACCESS_KEY: storage.secretAccessKey,
      STORAGE_S3_FORCE_PATH_STYLE: 'true',
      WORKER_BUILD_ID: releaseBuildId(first),
    };
    // Only what an operator would set: nothing of the harness's own environment leaks into the product.
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '', ...productEnv, ...(options.settings ?? PACING) };
    const cliEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, TEMPORAL_ADDRESS: temporal.address };
    const temporalCli = (...args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(temporalServerBinaries().cli, args, { env: cliEnv }, (error, stdout, stderr) =>
          error ? reject(new Error(`temporal ${args.join(' ')}: ${stderr || error.message}`)) : resolve(stdout),
        ),
      );
    const migrate = (checkout: string) =>
      runToEnd(node, [join(checkout, 'db/migrate.ts'), 'up'], env, join(logs, 'migrate.log'));
    let releases = 0;
    /** A release's APIs and workers on ports of their own, its workers a build of its own. */
    const releaseProcesses = (checkout: string, apiPorts: number[]): ReleaseProcesses => {
      const buildId = releaseBuildId(checkout);
      const tag = releases++ === 0 ? '' : `-r${releases}`;
      const apis = apiPorts.map((port, index) =>
        productProcess({
          name: `api-${index + 1}${tag}`,
          script: join(checkout, 'api/main.ts'),
          nodeFlags: [...(options.nodeFlags ?? []), ...API_NODE_FLAGS],
          env: { ...env, PORT: String(port) },
          readyLine: 'api listening',
          logFile: join(logs, `api-${index + 1}${tag}.log`),
        }),
      );
      const workers = Array.from({ length: REPLICAS }, (_, index) =>
        productProcess({
          name: `worker-${index + 1}${tag}`,
          script: join(checkout, 'worker/main.ts'),
          nodeFlags: [...(options.nodeFlags ?? []), ...WORKER_NODE_FLAGS],
          env: { ...env, ...WORKER_ENVIRONMENT, WORKER_BUILD_ID: buildId },
          readyLine: 'worker running',
          logFile: join(logs, `worker-${index + 1}${tag}.log`),
        }),
      );
      stops.push(...workers.map((worker) => () => worker.stop()), ...apis.map((api) => () => api.stop()));
      return { checkout, buildId, apis, apiUrls: apiPorts.map((port) => `http://127.0.0.1:${port}`), workers };
    };

    await migrate(first);
    const { apis, workers } = releaseProcesses(first, ports);
    await Promise.all([...workers, ...apis].map((process) => process.start()));
    // A first install: the workers' build becomes current, as compose's worker-deployment service makes it.
    await runToEnd(
      'sh',
      [join(REPO, 'deploy/worker-deployment.sh')],
      {
        ...cliEnv,
        TEMPORAL_CLI: temporalServerBinaries().cli,
        TEMPORAL_NAMESPACE: productEnv.TEMPORAL_NAMESPACE,
        WORKER_BUILD_ID: productEnv.WORKER_BUILD_ID,
      },
      join(logs, 'worker-deployment.log'),
    );

    const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    pool.on('error', () => {});
    stops.push(() => pool.end());
    const trusting = new Agent({ connect: { ca: certificates.ca } });
    stops.push(() => trusting.close());

    return {
      dir,
      apiUrls,
      env: { ...process.env, ...env },
      productEnv,
      temporalAddress: temporal.address,
      signingAuthority,
      namespace,
      temporal,
      apis,
      workers,
      processes: [...apis, ...workers],
      async startRelease(checkout) {
        const release = releaseProcesses(checkout, await Promise.all(apis.map(() => freePort())));
        await Promise.all([...release.workers, ...release.apis].map((process) => process.start()));
        return release;
      },
      migrate,
      temporalCli,
      parts: {
        api: apis,
        worker: workers,
        temporal: [{ name: 'temporal', kill: temporal.kill, start: temporal.start }],
      },
      receiver: {
        url: `${urls.erpReceiverUrl}/erp`,
        secret: receiverSecret,
        async state() {
          const response = await fetch(`${urls.erpReceiverUrl}/_control/received`, { dispatcher: trusting });
          const body = (await response.json()) as {
            received: ReceivedRequest[];
            registered: Record<string, RegisteredVoucher>;
            duplicates: number;
          };
          return {
            received: body.received,
            registered: new Map(Object.entries(body.registered)),
            duplicates: body.duplicates,
          };
        },
      },
      query: async (sql, params) => (await pool.query(sql, params)).rows,
      async stop(options = {}) {
        await stopAll();
        if (!options.keep) rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopAll();
    throw new Error(`${(error as Error).message}\n(logs kept in ${logs})`, { cause: error });
  }
}

/** Starts simulators/main.ts inside the namespace and reads the URLs it prints. */
async function startSimulatorsIn(
  namespace: NetworkNamespace,
  options: { args: string[]; mailboxDir: string; logFile: string; stops: (() => Promise<void> | void)[] },
): Promise<SimulatorUrls> {
  const log = createWriteStream(options.logFile, { flags: 'a' });
  const child = namespace.spawn(
    node,
    [join(REPO, 'simulators/main.ts'), '--host', namespace.address, ...options.args],
    {
      env: { PATH: process.env.PATH ?? '', DIAN_MAILBOX_DIR: options.mailboxDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  options.stops.push(
    () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  );
  child.stderr!.pipe(log);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      log.write(chunk);
      output += chunk.toString();
      const line = output.split('\n')[0];
      if (output.includes('\n') && line) resolve(JSON.parse(line) as SimulatorUrls);
    });
    child.once('exit', (code) =>
      reject(new Error(`The simulators exited (${code}) before listening; see ${options.logFile}`)),
    );
  });
}

/** Runs a one-shot command of the product (the migration), as compose's `migrate` service does. */
/** The build id a release of this checkout deploys its workers with: its package version and commit. */
export function releaseBuildId(repo: string): string {
  const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  const commit = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  return `${version}-${commit}`;
}

function runToEnd(command: string, args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const log = createWriteStream(logFile);
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}; see ${logFile}`)),
    );
  });
}
