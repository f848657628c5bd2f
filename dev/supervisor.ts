// What `npm start` runs its parts with: the processes it spawns (the worker, the API), the services it started
// (PostgreSQL, the Temporal dev server, the simulators) and itself stop together. When a part ends on its own, or the
// launcher itself fails (an uncaught error), every other part is stopped and the launcher exits non-zero: nothing is
// left running without the others, and a restart starts from a clean slate.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import type { Writable } from 'node:stream';

export interface Supervisor {
  /**
   * Runs a child process; its output goes to `log` when given. When it exits on its own (not stopped by the
   * supervisor), everything stops.
   */
  spawn(name: string, command: string, args: string[], options?: SpawnOptions & { log?: Writable }): ChildProcess;
  /** A part started elsewhere: how to stop it; `exited` is what it calls when it ends on its own. */
  adopt(name: string, stop: () => Promise<void>): { exited(how: string): void };
  /** Stops the children (SIGTERM, then SIGKILL after the grace period), then the adopted parts, newest first. */
  shutdown(code?: number): Promise<void>;
  readonly stopping: boolean;
}

export interface SupervisorOptions {
  /** Where the supervisor says what happens (the launcher's own output). */
  say: (line: string) => void;
  /** What a part that ended points the operator to, e.g. its log file. */
  hint?: (name: string) => string;
  /** How long a child has after SIGTERM before SIGKILL. */
  graceMs?: number;
  /** Ends the launcher once everything stopped (process.exit by default). */
  exit?: (code: number) => void;
  /** Said once everything stopped. */
  stopped?: string;
}

export function createSupervisor(options: SupervisorOptions): Supervisor {
  const { say } = options;
  const graceMs = options.graceMs ?? 15_000;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const children: { name: string; child: ChildProcess }[] = [];
  const adopted: { name: string; stop: () => Promise<void> }[] = [];
  let stopping = false;

  const ended = (name: string, how: string) => {
    if (stopping) return;
    say(`✗ ${name} exited (${how})${options.hint ? `; ${options.hint(name)}` : ''}: stopping everything`);
    void shutdown(1);
  };

  async function shutdown(code = 0): Promise<void> {
    if (stopping) return;
    stopping = true;
    say('\n• stopping…');
    await Promise.all(children.map(({ child }) => stopChild(child, graceMs)));
    for (const { name, stop } of adopted.reverse()) {
      await stop().catch((error: Error) => say(`  ${name}: ${error.message}`));
    }
    say(options.stopped ?? '• stopped');
    exit(code);
  }

  return {
    spawn(name, command, args, spawnOptions = {}) {
      const { log, ...rest } = spawnOptions;
      const child = spawn(command, args, {
        stdio: ['ignore', log ? 'pipe' : 'ignore', log ? 'pipe' : 'ignore'],
        ...rest,
      });
      if (log) {
        child.stdout?.pipe(log, { end: false });
        child.stderr?.pipe(log, { end: false });
      }
      child.once('error', (error) => ended(name, error.message));
      child.once('exit', (code, signal) => ended(name, signal ?? String(code)));
      children.push({ name, child });
      return child;
    },
    adopt(name, stop) {
      adopted.push({ name, stop });
      return { exited: (how) => ended(name, how) };
    },
    shutdown,
    get stopping() {
      return stopping;
    },
  };
}

/**
 * Makes the launcher's own failures stop everything too: an uncaught error (a simulator that runs inside it, a
 * rejected promise nobody awaited) would otherwise end the launcher alone and leave every part running.
 */
export function stopOnLauncherFailure(supervisor: Supervisor, say: (line: string) => void): void {
  const failed = (error: unknown) => {
    say(`✗ the launcher failed: ${(error as Error)?.stack ?? String(error)}`);
    void supervisor.shutdown(1);
  };
  process.on('uncaughtException', failed);
  process.on('unhandledRejection', failed);
  process.on('SIGINT', () => void supervisor.shutdown());
  process.on('SIGTERM', () => void supervisor.shutdown());
}

function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
