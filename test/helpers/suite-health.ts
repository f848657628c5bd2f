// What the machine and the suite's shared services went through during a run, for the one line the run ends with:
// a CI log keeps only its end, and a failure that comes from a starved machine, a full disk or a shared server that
// stopped answering reads there as an assertion in whichever tests ran at the time.
import { statfs } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { readFileSync } from 'node:fs';
import type { Connection } from '@temporalio/client';
import type { Orm } from '../../db/orm.ts';

const EVERY_MS = 5_000;
const ANSWER_WITHIN_MS = 5_000;
const GB = 1024 ** 3;

interface Outage {
  /** Seconds into the run of the first unanswered check, and of the last. */
  from: number;
  to: number;
  checks: number;
  error: string;
}

/** Kept on the global object: the setup file and the reporter are loaded apart, in the same process. */
const KEY = Symbol.for('accounts-payable.suite-health');

export interface SuiteHealthSources {
  orm: Orm;
  temporal: Connection;
  /** A folder on the disk the suite writes to. */
  dataDir: string;
}

class SuiteHealth {
  private readonly started = Date.now();
  private readonly timer: NodeJS.Timeout;
  private readonly outages: Record<'postgres' | 'temporal', Outage[]> = { postgres: [], temporal: [] };
  private load = 0;
  private memoryFree = Infinity;
  private diskFree = Infinity;
  private connections = 0;
  private serverLog: string[] = [];
  private serverLogCount = 0;

  private readonly sources: SuiteHealthSources;

  constructor(sources: SuiteHealthSources) {
    this.sources = sources;
    this.timer = setInterval(() => void this.sample(), EVERY_MS);
    this.timer.unref();
  }

  /** A line the Temporal dev server logged at warning level or above. */
  serverLogged(line: string): void {
    if (!/error|panic|exhausted|fatal/i.test(line)) return;
    this.serverLogCount += 1;
    this.serverLog = [...this.serverLog.slice(-2), line.trim().slice(0, 300)];
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private seconds(): number {
    return Math.round((Date.now() - this.started) / 1000);
  }

  private async sample(): Promise<void> {
    this.load = Math.max(this.load, loadavg()[0]!);
    this.memoryFree = Math.min(this.memoryFree, availableMemory());
    const disk = await statfs(this.sources.dataDir).catch(() => null);
    if (disk) this.diskFree = Math.min(this.diskFree, disk.bavail * disk.bsize);
    await Promise.all([
      this.check('postgres', async () => {
        const [row] = await this.sources.orm.em
          .fork()
          .execute<{ n: string }[]>('select count(*) as n from pg_stat_activity');
        this.connections = Math.max(this.connections, Number(row!.n));
      }),
      this.check('temporal', () => this.sources.temporal.healthService.check({})),
    ]);
  }

  private async check(service: 'postgres' | 'temporal', probe: () => Promise<unknown>): Promise<void> {
    try {
      await Promise.race([
        probe(),
        new Promise((_, reject) => setTimeout(() => reject(new Error('no answer')), ANSWER_WITHIN_MS).unref()),
      ]);
    } catch (error) {
      const now = this.seconds();
      const outages = this.outages[service];
      const last = outages.at(-1);
      if (last && now - last.to <= (EVERY_MS * 2) / 1000) Object.assign(last, { to: now, checks: last.checks + 1 });
      else outages.push({ from: now, to: now, checks: 1, error: (error as Error).message.slice(0, 200) });
    }
  }

  summary(): string {
    const outages = (service: 'postgres' | 'temporal', name: string) => {
      const list = this.outages[service];
      if (list.length === 0) return `${name} answered every check`;
      const spans = list.map((outage) => `${outage.from}-${outage.to} s (${outage.error})`).join(', ');
      return `${name} did not answer at ${spans}`;
    };
    const finite = (value: number) => (Number.isFinite(value) ? `${(value / GB).toFixed(1)} GB` : 'unknown');
    const lines = [
      `suite health: load ${this.load.toFixed(1)} at most on ${availableParallelism()} cores, ` +
        `memory available ${finite(this.memoryFree)} at least, disk free ${finite(this.diskFree)} at least, ` +
        `${this.connections} PostgreSQL connections at most`,
      `suite health: ${outages('postgres', 'PostgreSQL')}; ${outages('temporal', 'the Temporal dev server')}; ` +
        `the Temporal dev server logged ${this.serverLogCount} error line(s)`,
      ...this.serverLog.map((line) => `suite health: Temporal dev server: ${line}`),
    ];
    return lines.join('\n');
  }
}

/** MemAvailable from /proc/meminfo: what the machine can still give without swapping. */
function availableMemory(): number {
  const line = readFileSync('/proc/meminfo', 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('MemAvailable:'));
  return line ? Number(/(\d+)/.exec(line)![1]) * 1024 : Infinity;
}

type Holder = { [KEY]?: SuiteHealth };

/** Starts watching; the reporter reads the summary at the end of the run. */
export function watchSuiteHealth(sources: SuiteHealthSources): SuiteHealth {
  const health = new SuiteHealth(sources);
  (globalThis as Holder)[KEY] = health;
  return health;
}

/** The summary of the run's health, or null when nothing watched it. */
export function suiteHealthSummary(): string | null {
  return (globalThis as Holder)[KEY]?.summary() ?? null;
}
