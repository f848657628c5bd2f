import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, createWriteStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import { CLI_CACHE_DIR, findTemporalCli } from '../../dev/temporal.ts';
import { createServer } from 'node:net';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** The server release the suite runs and docker-compose.yml deploys (temporalio/server and admin-tools images). */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
const MODULE = `go.temporal.io/server@v${TEMPORAL_SERVER_VERSION}`;

/** The server's settings that docker compose gives its `temporal` service too (the image's config template reads them). */
export const SHARED_SERVER_VARIABLES = [
  'DB',
  'DB_PORT',
  'POSTGRES_SEEDS',
  'POSTGRES_USER',
  'POSTGRES_PWD',
  'DBNAME',
  'VISIBILITY_DBNAME',
  'DYNAMIC_CONFIG_FILE_PATH',
] as const;

/** The variables of deploy/temporal-schema.sh and deploy/temporal-setup.sh, which compose's services set too. */
export const SCHEMA_VARIABLES = [
  'SQL_HOST',
  'SQL_PORT',
  'SQL_USER',
  'SQL_PASSWORD',
  'DBNAME',
  'VISIBILITY_DBNAME',
  'SCHEMA_DIR',
] as const;
export const SETUP_VARIABLES = ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE'] as const;

export interface TemporalDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface TemporalServer {
  address: string;
  /** SIGKILL, as a crash would; its state is in PostgreSQL. */
  kill: () => Promise<void>;
  /** Starts it again on the same ports and databases. */
  start: () => Promise<void>;
  stop: () => Promise<void>;
}

export interface TemporalServerOptions {
  dir: string;
  database: TemporalDatabase;
  logFile: string;
}

/** The server and its schema tool: `TEMPORAL_SERVER_PATH` / `TEMPORAL_SQL_TOOL_PATH`, else built once with Go into the cache. */
export function temporalServerBinaries(env: NodeJS.ProcessEnv = process.env): {
  server: string;
  sqlTool: string;
  cli: string;
} {
  const build = (variable: string, name: string, pkg: string) => {
    if (env[variable]) return env[variable];
    const path = join(CLI_CACHE_DIR, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      const built = spawnSync('go', ['install', `${pkg}@v${TEMPORAL_SERVER_VERSION}`], {
        env: { ...process.env, GOBIN: CLI_CACHE_DIR, GOFLAGS: '-buildvcs=false' },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      if (built.status !== 0) throw new Error(`Could not build ${pkg} with Go; set ${variable}`);
      return path;
    }
  };
  const cli = findTemporalCli(env);
  if (!cli)
    throw new Error('The Temporal CLI is needed to set up the namespace (.ci/run builds it; or set TEMPORAL_CLI_PATH)');
  return {
    server: build('TEMPORAL_SERVER_PATH', 'server', 'go.temporal.io/server/cmd/server'),
    sqlTool: build('TEMPORAL_SQL_TOOL_PATH', 'sql', 'go.temporal.io/server/cmd/tools/sql'),
    cli: cli.path,
  };
}

/** Where Go keeps the server's module: its PostgreSQL schemas and the config template of its image. */
async function serverModuleDir(): Promise<string> {
  const { stdout } = await run('go', ['mod', 'download', '-json', MODULE]);
  return (JSON.parse(stdout) as { Dir: string }).Dir;
}

/**
 * The real Temporal server (not the dev server) on PostgreSQL for persistence and visibility, set up as
 * docker-compose.yml sets it up: the schemas by deploy/temporal-schema.sh with the schema tool, the server configured
 * through its image's config template and variables, the namespace and search attributes by deploy/temporal-setup.sh.
 */
export async function startTemporalServer(options: TemporalServerOptions): Promise<TemporalServer> {
  const binaries = temporalServerBinaries();
  const moduleDir = await serverModuleDir();
  const { database } = options;
  await run('sh', [join(REPO, 'deploy/temporal-schema.sh')], {
    env: {
      ...process.env,
      TEMPORAL_SQL_TOOL: binaries.sqlTool,
      ...({
        SQL_HOST: database.host,
        SQL_PORT: String(database.port),
        SQL_USER: database.user,
        SQL_PASSWORD: database.password,
        DBNAME: 'temporal',
        VISIBILITY_DBNAME: 'temporal_visibility',
        SCHEMA_DIR: join(moduleDir, 'schema/postgresql/v12'),
      } satisfies Record<(typeof SCHEMA_VARIABLES)[number], string>),
    },
  });

  // The image's own config template, rendered from the same variables. The image renders it with dockerize
  // (`default .Env.X "d"`); the server renders a file marked enable-template itself, with sprig, whose `default` takes
  // its arguments the other way round and reads variables with `env "X"`.
  const configDir = join(options.dir, 'config');
  mkdirSync(configDir, { recursive: true });
  const template = readFileSync(join(moduleDir, 'docker/config_template.yaml'), 'utf8')
    .replace(/default \.Env\.([A-Z0-9_]+) ("[^"]*"|\$\w+)/g, 'default $2 (env "$1")')
    .replace(/\.Env\.([A-Z0-9_]+)/g, '(env "$1")');
  writeFileSync(join(configDir, 'docker.yaml'), `# enable-template\n${template}`);
  const ports: Record<string, string> = {};
  for (const name of [
    'FRONTEND_GRPC_PORT',
    'FRONTEND_HTTP_PORT',
    'FRONTEND_MEMBERSHIP_PORT',
    'HISTORY_GRPC_PORT',
    'HISTORY_MEMBERSHIP_PORT',
    'MATCHING_GRPC_PORT',
    'MATCHING_MEMBERSHIP_PORT',
    'WORKER_GRPC_PORT',
    'WORKER_MEMBERSHIP_PORT',
  ]) {
    ports[name] = String(await freeServerPort(Object.values(ports)));
  }
  const shared: Record<(typeof SHARED_SERVER_VARIABLES)[number], string> = {
    DB: 'postgres12',
    DB_PORT: String(database.port),
    POSTGRES_SEEDS: database.host,
    POSTGRES_USER: database.user,
    POSTGRES_PWD: database.password,
    DBNAME: 'temporal',
    VISIBILITY_DBNAME: 'temporal_visibility',
    DYNAMIC_CONFIG_FILE_PATH: join(REPO, 'deploy/temporal-dynamic-config.yaml'),
  };
  // Every service on one host: each gets its own ports, where compose gives each container its own address.
  const env = {
    PATH: process.env.PATH ?? '',
    ...shared,
    ...ports,
    BIND_ON_IP: '127.0.0.1',
    TEMPORAL_BROADCAST_ADDRESS: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  const address = `127.0.0.1:${ports.FRONTEND_GRPC_PORT}`;
  const log = createWriteStream(options.logFile, { flags: 'a' });

  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      binaries.server,
      ['--root', options.dir, '--config', 'config', '--env', 'docker', '--allow-no-auth', 'start'],
      { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    started.stdout!.pipe(log, { end: false });
    started.stderr!.pipe(log, { end: false });
    child = started;
    await waitUntilServing(address, started, options.logFile);
  };
  await start();
  await run('sh', [join(REPO, 'deploy/temporal-setup.sh')], {
    env: {
      ...process.env,
      TEMPORAL_CLI: binaries.cli,
      ...({ TEMPORAL_ADDRESS: address, TEMPORAL_NAMESPACE: 'default' } satisfies Record<
        (typeof SETUP_VARIABLES)[number],
        string
      >),
    },
  });

  const signal = (name: NodeJS.Signals) => async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill(name);
    });
  };
  return {
    address,
    start,
    kill: signal('SIGKILL'),
    async stop() {
      await signal('SIGTERM')();
      log.end();
    },
  };
}

/** Until the frontend answers (clients retry while the other services join the ring). */
async function waitUntilServing(address: string, child: ChildProcess, logFile: string): Promise<void> {
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = String(signal ?? code)));
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (exited !== null)
      throw new Error(`The Temporal server exited (${String(exited)}) before serving; see ${logFile}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  child.kill('SIGKILL');
  throw new Error(`The Temporal server did not answer on ${address} within 120 s; see ${logFile}`);
}

/**
 * A free port below 32768: the server stores membership ports in a smallint, so the kernel's ephemeral range (where
 * a port of 0 lands) is out of reach.
 */
async function freeServerPort(taken: string[]): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.includes(String(port))) continue;
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}
