import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { API_NODE_FLAGS } from '../../api/node-flags.ts';
import { WORKER_NODE_FLAGS } from '../../worker/node-flags.ts';
import { suiteEnv } from './ops.ts';

/** A worker as its own operating-system process (`node worker/main.ts`), to be killed as a crash would. */
export interface WorkerProcess {
  process: ChildProcess;
  /** Resolves once the worker polls its task queue. */
  ready: Promise<void>;
  /** Everything it wrote (its JSON logs on stdout, anything on stderr). */
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function spawnWorker(taskQueue: string, env: Record<string, string> = {}): WorkerProcess {
  return spawnProduct(
    'worker/main.ts',
    'worker running',
    { TEMPORAL_TASK_QUEUE: taskQueue, ...env },
    WORKER_NODE_FLAGS,
  );
}

/** An API as its own process (`node api/main.ts`) on a port of its own. */
export interface ApiProcess extends WorkerProcess {
  url: string;
}

/** Starts the API on `port`, against the suite's services (starting workflows on the suite's task queue unless `env` says otherwise). */
export function spawnApi(port: number, env: Record<string, string> = {}): ApiProcess {
  return {
    ...spawnProduct('api/main.ts', 'api listening', { PORT: String(port), HOST: '127.0.0.1', ...env }, API_NODE_FLAGS),
    url: `http://127.0.0.1:${port}`,
  };
}

/** Runs one of the product's entry points with the suite's environment; ready once it logged `readyText`. */
function spawnProduct(
  script: string,
  readyText: string,
  env: Record<string, string>,
  nodeFlags: readonly string[] = [],
): WorkerProcess {
  const child = spawn(process.execPath, [...nodeFlags, script], {
    env: { ...suiteEnv(), LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let running = false;
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      // Once running, the output only grows: it is not searched again.
      if (!running && output.includes(readyText)) {
        running = true;
        resolve();
      }
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) =>
      reject(new Error(`${script} exited (${code}) before running:\n${output.slice(-2000)}`)),
    );
  });
  return {
    process: child,
    ready,
    output: () => output,
    kill: (signal = 'SIGKILL') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill(signal);
      }),
  };
}

/** A process's peak resident memory so far (VmHWM, Linux), in bytes. */
export function peakResidentBytes(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('VmHWM:'));
  return Number(/(\d+)/.exec(line!)![1]) * 1024;
}
