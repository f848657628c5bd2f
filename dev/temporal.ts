import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { SEARCH_ATTRIBUTES } from '../workflows/search-attributes.ts';
import { freePort } from '../platform/ports.ts';

export interface DevTemporal {
  address: string;
  uiUrl: string | null;
  /** How the server was found. */
  source: CliSource | 'download';
  stop: () => Promise<void>;
  /** SIGKILL, as a crash would; with `dbFile` the state survives for `start` (needs the CLI, not the download). */
  kill: () => Promise<void>;
  /** Starts the server again on the same port (and state, with `dbFile`) after `stop` or `kill` (needs the CLI). */
  start: () => Promise<void>;
  /**
   * SIGSTOP: a hung server, its connections open and nothing answered, until `thaw` (needs the CLI). Resolves once
   * every thread of it has stopped: a thread busy in the kernel (a disk write) stops only when it comes back.
   */
  freeze(): Promise<void>;
  /** SIGCONT after `freeze`. */
  thaw(): void;
}

export interface DevTemporalOptions {
  /** SQLite file for the server's state; in memory when absent. */
  dbFile?: string;
  port?: number;
  uiPort?: number;
  ui?: boolean;
  namespace?: string;
  onLog?: (line: string) => void;
  /**
   * Called when the server exits on its own (not through `stop` or `kill`), with its signal or exit code. Only with the
   * CLI: the SDK's download runs the server where its exit is not seen.
   */
  onExit?: (how: string) => void;
  /** When no CLI is found, build it with Go (if installed), reporting progress here. */
  build?: (line: string) => void;
}

type CliSource = 'TEMPORAL_CLI_PATH' | 'PATH' | 'cache' | 'go install';

export const TEMPORAL_CLI_VERSION = 'v1.5.1';

/**
 * The server's dynamic configuration, as `deploy/temporal-dynamic-config.yaml` gives it to docker compose and the
 * production-shape suite (the dev server takes it as flags). The server hands an activity to the worker whose workflow
 * task scheduled it, in its answer to that task, instead of through a poll: a step decision or an approval writes its
 * read state in such an activity, and this halves the command's latency (off by default). The transfer queue, which
 * among others hands the workflow task that follows an activity to a worker, reads its tasks at most 20 times a second
 * per history shard by default (the dev server has one): under a steady stream of commands each then waited 25-45 ms
 * for that task.
 */
export const DYNAMIC_CONFIG: Readonly<Record<string, boolean | number>> = {
  'system.enableActivityEagerExecution': true,
  'history.transferProcessorMaxPollRPS': 1000,
};
const DYNAMIC_CONFIG_ARGS = Object.entries(DYNAMIC_CONFIG).flatMap(([key, value]) => [
  '--dynamic-config-value',
  `${key}=${JSON.stringify(value)}`,
]);
/** Where a Temporal CLI built from source is kept: outside the repository, shared by every checkout. */
export const CLI_CACHE_DIR = join(process.env.AP_CACHE_DIR ?? join(homedir(), '.cache', 'accounts-payable'), 'bin');

const executable = (path: string) => {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** Finds the Temporal CLI: TEMPORAL_CLI_PATH, then `temporal` on PATH, then one built earlier into the cache. */
export function findTemporalCli(env: NodeJS.ProcessEnv = process.env): { path: string; source: CliSource } | null {
  if (env.TEMPORAL_CLI_PATH) return { path: env.TEMPORAL_CLI_PATH, source: 'TEMPORAL_CLI_PATH' };
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'temporal'))
    .find(executable);
  if (onPath) return { path: onPath, source: 'PATH' };
  const cached = join(CLI_CACHE_DIR, 'temporal');
  return executable(cached) ? { path: cached, source: 'cache' } : null;
}

/** Without a CLI but with Go, builds the official one into the cache once (a few minutes); else null. */
function buildTemporalCli(onLog: (line: string) => void): { path: string; source: CliSource } | null {
  if (spawnSync('go', ['version'], { stdio: 'ignore' }).status !== 0) return null;
  onLog(`building the Temporal CLI ${TEMPORAL_CLI_VERSION} with Go into ${CLI_CACHE_DIR} (once)`);
  const build = spawnSync('go', ['install', `github.com/temporalio/cli/cmd/temporal@${TEMPORAL_CLI_VERSION}`], {
    env: { ...process.env, GOBIN: CLI_CACHE_DIR, GOFLAGS: '-buildvcs=false' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const path = join(CLI_CACHE_DIR, 'temporal');
  return build.status === 0 && executable(path) ? { path, source: 'go install' } : null;
}

/** Starts the Temporal dev server (with its Web UI when asked) and registers the search attributes. */
export async function startDevTemporal(options: DevTemporalOptions = {}): Promise<DevTemporal> {
  const port = options.port ?? (await freePort());
  const uiPort = options.ui ? (options.uiPort ?? (await freePort())) : undefined;
  const namespace = options.namespace ?? 'default';
  if (options.dbFile) mkdirSync(dirname(options.dbFile), { recursive: true });
  const log = options.onLog ?? (() => {});
  const cli = findTemporalCli() ?? (options.build ? buildTemporalCli(options.build) : null);
  if (!cli) return downloadAndStart(port, uiPort, namespace, options);

  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(port),
    '--namespace',
    namespace,
    '--log-level',
    'warn',
  ];
  args.push(...DYNAMIC_CONFIG_ARGS);
  args.push(...(uiPort ? ['--ui-port', String(uiPort)] : ['--headless']));
  if (options.dbFile) args.push('--db-filename', options.dbFile);
  for (const key of SEARCH_ATTRIBUTES)
    args.push('--search-attribute', `${key.name}=${key.type === 'KEYWORD' ? 'Keyword' : 'Datetime'}`);
  const address = `127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  const start = async () => {
    // Its own process group: a Ctrl-C meant for the launcher must not stop Temporal before the worker drains.
    const started = spawn(cli.path, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    started.stdout?.on('data', (chunk: Buffer) => log(chunk.toString()));
    started.stderr?.on('data', (chunk: Buffer) => log(chunk.toString()));
    child = started;
    // `stop` and `kill` forget the child before signalling it: an exit while it is still the child was not asked for.
    started.once('exit', (code, signal) => {
      if (child !== started) return;
      child = undefined;
      options.onExit?.(signal ?? String(code));
    });
    await waitUntilServing(address, started);
  };
  await start();
  const forget = (end: (running: ChildProcess) => Promise<void>) => {
    const running = child;
    child = undefined;
    return running ? end(running) : Promise.resolve();
  };
  return {
    address,
    uiUrl: uiPort ? `http://127.0.0.1:${uiPort}` : null,
    source: cli.source,
    start,
    stop: () => forget(stopChild),
    kill: () => forget(killChild),
    freeze: async () => {
      if (!child?.pid) return;
      child.kill('SIGSTOP');
      await allThreadsStopped(child.pid);
    },
    thaw: () => child?.kill('SIGCONT'),
  };
}

/** Resolves once every thread of the process shows state T (stopped) in /proc. */
async function allThreadsStopped(pid: number): Promise<void> {
  const stopped = async () => {
    const threads = await readdir(`/proc/${pid}/task`);
    const states = await Promise.all(
      threads.map(async (thread) => {
        const stat = await readFile(`/proc/${pid}/task/${thread}/stat`, 'utf8');
        // The state follows the command name, which is in parentheses and may hold spaces.
        return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      }),
    );
    return states.every((state) => state === 'T');
  };
  while (!(await stopped())) await sleep(10);
}

async function downloadAndStart(
  port: number,
  uiPort: number | undefined,
  namespace: string,
  options: DevTemporalOptions,
): Promise<DevTemporal> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port,
      namespace,
      ui: Boolean(uiPort),
      uiPort,
      dbFilename: options.dbFile,
      searchAttributes: SEARCH_ATTRIBUTES,
      extraArgs: DYNAMIC_CONFIG_ARGS,
    },
  });
  const restartUnsupported = () =>
    Promise.reject(new Error('Restarting the Temporal dev server needs the Temporal CLI (TEMPORAL_CLI_PATH)'));
  const signalUnsupported = () => {
    throw new Error('Signalling the Temporal dev server needs the Temporal CLI (TEMPORAL_CLI_PATH)');
  };
  return {
    address: env.address,
    uiUrl: uiPort ? `http://127.0.0.1:${uiPort}` : null,
    source: 'download',
    stop: () => env.teardown(),
    kill: restartUnsupported,
    start: restartUnsupported,
    freeze: async () => signalUnsupported(),
    thaw: signalUnsupported,
  };
}

async function waitUntilServing(address: string, child: ChildProcess): Promise<void> {
  let exited: number | null = null;
  child.once('exit', (code) => (exited = code ?? -1));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited !== null) throw new Error(`Temporal dev server exited with code ${String(exited)} before serving`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 1_000 });
      try {
        await connection.workflowService.getSystemInfo({});
        return;
      } finally {
        await connection.close();
      }
    } catch {
      await sleep(200);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`Temporal dev server did not answer on ${address} within 60 s`);
}

function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
