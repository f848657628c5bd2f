import { readFileSync } from 'node:fs';

/** Resident set size of a process in MB, from /proc (Linux); null when it is gone. */
export function rssMb(pid: number): number | null {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The load before the first one: the processes at rest. */
export const AT_REST = 'idle';

/**
 * Samples the RSS of the product's processes while the bench loads them, keeping the peak of each kind of process
 * (the APIs, the workers: the highest process of the kind) under each load of the bench (reads, commands, events...).
 */
export class MemorySampler {
  private readonly peaks = new Map<string, Map<string, number>>();
  private readonly processIds: () => Record<string, readonly number[]>;
  private load = AT_REST;
  private timer: NodeJS.Timeout | undefined;

  /** `processIds` answers the processes of each kind at every sample: a replica restarted has a new pid. */
  constructor(processIds: () => Record<string, readonly number[]>) {
    this.processIds = processIds;
  }

  start(intervalMs = 200): void {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** The bench's load from here on (`reads`, `commands`...). */
  startLoad(load: string): void {
    this.sample();
    this.load = load;
  }

  /** A scenario's own phase (`http`, `workflows`): a sample at its start; peaks are kept per load. */
  enter(_phase: string): void {
    this.sample();
  }

  stop(): void {
    this.sample();
    clearInterval(this.timer);
  }

  /** The peak before any load. */
  atRest(name: string): number {
    return this.peaks.get(name)?.get(AT_REST) ?? Number.NaN;
  }

  /** The peak under each load, in the order the loads ran. */
  loads(name: string): Record<string, number> {
    return Object.fromEntries([...(this.peaks.get(name) ?? [])].filter(([load]) => load !== AT_REST));
  }

  /** The highest peak over every load; NaN if no load ran. */
  peakUnderLoad(name: string): number {
    const peaks = Object.values(this.loads(name));
    return peaks.length ? Math.max(...peaks) : Number.NaN;
  }

  private sample(): void {
    for (const [name, pids] of Object.entries(this.processIds())) {
      const samples = pids.map(rssMb).filter((rss): rss is number => rss !== null);
      if (samples.length === 0) continue;
      const peaks = this.peaks.get(name) ?? new Map<string, number>();
      peaks.set(this.load, Math.max(peaks.get(this.load) ?? 0, ...samples));
      this.peaks.set(name, peaks);
    }
  }
}

/** Processes counted as one by `cpuMs`: the first API's pid stands for every API of the production shape. */
const groups = new Map<number, () => readonly number[]>();

/** From now on, `cpuMs(pid)` adds up the CPU of every process `members` answers (the APIs behind one load). */
export function countAsOne(pid: number, members: () => readonly number[]): void {
  groups.set(pid, members);
}

/** CPU time a process has used so far (user + system), in milliseconds, from /proc (Linux); with its group's. */
export function cpuMs(pid: number): number {
  return (groups.get(pid)?.() ?? [pid]).reduce((sum, member) => sum + ownCpuMs(member), 0);
}

function ownCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
