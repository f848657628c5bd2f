import { spawn, type ChildProcess } from 'node:child_process';
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
  const child = spawn(process.execPath, ['worker/main.ts'], { env: { ...suiteEnv(), TEMPORAL_TASK_QUEUE: taskQueue, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker running')) resolve();
    });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`worker exited (${code}) before running:\n${output.slice(-2000)}`)));
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
