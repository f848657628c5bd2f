import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';

/** The API or the worker, run as the product runs them: its own OS process, `node <script>`. */
export interface ProductProcess {
  readonly name: string;
  readonly logFile: string;
  /** Its OS process while it runs (a restart gets a new one); undefined while it is down. */
  readonly pid: number | undefined;
  /** Starts the process (unless it runs) and resolves once it logs its ready line. */
  start(): Promise<void>;
  /** SIGKILL, as a crash would: no drain, no cleanup. It stays down until `start`. */
  kill(): Promise<void>;
  /** SIGTERM: the process drains and exits; supervision stops until `start`. */
  stop(): Promise<void>;
  /** Exits the harness did not cause (the process gave up on its own); each was followed by a restart. */
  readonly unexpectedExits: number;
  /** The last lines the process wrote, for a failure message. */
  tail(): string;
}

export interface ProductProcessOptions {
  name: string;
  script: string;
  /** Node's own options before the script (the worker's heap limits). */
  nodeFlags?: readonly string[];
  env: NodeJS.ProcessEnv;
  /** A line the process logs once it serves (`api listening`, `worker running`). */
  readyLine: string;
  logFile: string;
  /** How long a start may take, restarts included (a worker bundles its workflows first). */
  startTimeoutMs?: number;
}

interface Launch {
  child: ChildProcess;
  /** true once the ready line is logged; false if the process exited before. */
  ready: Promise<boolean>;
}

const TAIL_LINES = 80;
/** A process manager's pause before restarting a process that exited on its own. */
const RESTART_DELAY_MS = 1_000;
const STOP_GRACE_MS = 15_000;

/**
 * Runs one product process under supervision, as systemd or an orchestrator would: killed by the harness, it stays
 * down until `start`; exiting on its own (say, started while PostgreSQL was down), it is restarted after a pause.
 */
export function productProcess(options: ProductProcessOptions): ProductProcess {
  let log = createWriteStream(options.logFile, { flags: 'a' });
  const recent: string[] = [];
  let current: Launch | undefined;
  let nextLaunch = Promise.withResolvers<Launch>();
  let wanted = false;
  let unexpectedExits = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  const remember = (text: string) => {
    // Output that arrives after `stop` closed the log (stdio may outlive the exit) stays in the tail only.
    if (!log.writableEnded) log.write(text);
    recent.push(...text.split('\n').filter(Boolean));
    if (recent.length > TAIL_LINES) recent.splice(0, recent.length - TAIL_LINES);
  };

  const launch = (): Launch => {
    // Started again after `stop`, which closed the log: it goes on in the same file.
    if (log.writableEnded) log = createWriteStream(options.logFile, { flags: 'a' });
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), options.script], {
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const ready = Promise.withResolvers<boolean>();
    // Until ready, the output is kept whole: the ready line may arrive split across chunks.
    let untilReady: string | null = '';
    const watch = (chunk: Buffer) => {
      const text = chunk.toString();
      remember(text);
      if (untilReady === null) return;
      untilReady += text;
      if (untilReady.includes(options.readyLine)) {
        untilReady = null;
        ready.resolve(true);
      }
    };
    child.stdout!.on('data', watch);
    child.stderr!.on('data', watch);
    const started: Launch = { child, ready: ready.promise };
    child.once('exit', (code, signal) => {
      remember(`[harness] ${options.name} exited (${signal ?? code})\n`);
      ready.resolve(false);
      if (current === started) current = undefined;
      if (!wanted) return;
      unexpectedExits += 1;
      restartTimer = setTimeout(() => wanted && launch(), RESTART_DELAY_MS);
    });
    current = started;
    const waiting = nextLaunch;
    nextLaunch = Promise.withResolvers<Launch>();
    waiting.resolve(started);
    return started;
  };

  const start = async () => {
    wanted = true;
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${options.name} was not ready within ${timeoutMs / 1000} s:\n${recent.join('\n')}`)),
        timeoutMs,
      );
    });
    try {
      let attempt = current ?? launch();
      // A start that fails (a dependency still down) is restarted by supervision: wait for the first that serves.
      while (!(await Promise.race([attempt.ready, timeout])))
        attempt = current && current !== attempt ? current : await Promise.race([nextLaunch.promise, timeout]);
    } finally {
      clearTimeout(timer);
    }
  };

  const signal = (name: NodeJS.Signals) => async () => {
    wanted = false;
    clearTimeout(restartTimer);
    const running = current?.child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      // A drain that does not end in time is cut short, as an orchestrator would after its grace period.
      const force = setTimeout(() => running.kill('SIGKILL'), STOP_GRACE_MS);
      running.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      running.kill(name);
    });
  };

  return {
    name: options.name,
    logFile: options.logFile,
    get pid() {
      return current?.child.pid;
    },
    start,
    kill: signal('SIGKILL'),
    async stop() {
      await signal('SIGTERM')();
      await new Promise<void>((resolve) => log.end(resolve));
    },
    get unexpectedExits() {
      return unexpectedExits;
    },
    tail: () => recent.join('\n'),
  };
}
