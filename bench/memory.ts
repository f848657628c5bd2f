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

/** Samples the RSS of named processes while work runs, keeping the peak per process and per phase. */
export class MemorySampler {
  readonly peaks = new Map<string, number>();
  private readonly processes: Record<string, number>;
  private phase = 'idle';
  private timer: NodeJS.Timeout | undefined;

  constructor(processes: Record<string, number>) {
    this.processes = processes;
  }

  start(intervalMs = 200): void {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Peaks from here on are recorded under this phase too (e.g. `http`, `workflows`). */
  enter(phase: string): void {
    this.sample();
    this.phase = phase;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  peak(name: string, phase?: string): number {
    return this.peaks.get(phase ? `${name}/${phase}` : name) ?? Number.NaN;
  }

  private sample(): void {
    for (const [name, pid] of Object.entries(this.processes)) {
      const rss = rssMb(pid);
      if (rss === null) continue;
      for (const key of [name, `${name}/${this.phase}`]) this.peaks.set(key, Math.max(this.peaks.get(key) ?? 0, rss));
    }
  }
}

/** CPU time a process has used so far (user + system), in milliseconds, from /proc (Linux). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
