import type { Random } from './random.ts';
import type { Part, Stack } from './stack.ts';

export const FAULT_KINDS = ['worker', 'api', 'temporal', 'postgres'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultPlan {
  /** How many times each kind is injected; the order is shuffled by the seed. */
  rounds: number;
  /** Quiet time before each fault, in ms: a random moment within [min, max]. */
  gapMs: [number, number];
  /** How long the killed part stays down before it is started again. */
  downMs: [number, number];
}

export interface ScheduledFault {
  kind: FaultKind;
  /** Which replica of the kind (the API and the worker may run several). */
  replica: number;
  /** Quiet time before the kill. */
  gapMs: number;
  downMs: number;
}

export interface InjectedFault {
  kind: FaultKind;
  /** The part killed, e.g. `api-2`. */
  part: string;
  /** Since the start of the run. */
  atMs: number;
  downMs: number;
  /** From the kill until the part served again. */
  recoveredAfterMs: number;
  /** Documents imported whose flow had not ended when the part was killed. */
  documentsInFlight: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The seeded schedule: every kind the stack has `rounds` times, shuffled, on a random replica, with random gaps and downtimes. */
export function faultSchedule(plan: FaultPlan, random: Random, stack: Pick<Stack, 'parts'>): ScheduledFault[] {
  const present = FAULT_KINDS.filter((kind) => stack.parts[kind]?.length);
  const kinds = random.shuffle(Array.from({ length: plan.rounds }, () => present).flat());
  // A replica is drawn only where there are several, so that seeds of single-replica runs replay as before.
  const replica = (kind: FaultKind) =>
    stack.parts[kind]!.length > 1 ? random.int(0, stack.parts[kind]!.length - 1) : 0;
  return kinds.map((kind) => ({
    kind,
    replica: replica(kind),
    gapMs: random.int(...plan.gapMs),
    downMs: random.int(...plan.downMs),
  }));
}

/**
 * Kills one part of the stack with SIGKILL and starts it again on the same port and data, one fault at a time,
 * following the schedule. Resolves with what was injected once the last part serves again.
 */
export async function injectFaults(
  stack: Pick<Stack, 'parts'>,
  schedule: ScheduledFault[],
  startedAt: number,
  inFlight: () => number,
  log: (line: string) => void,
): Promise<InjectedFault[]> {
  const injected: InjectedFault[] = [];
  for (const { kind, replica, gapMs, downMs } of schedule) {
    // The point of the gap is a random moment in the load: a schedule, not a wait for a condition.
    await pause(gapMs);
    const killedAt = Date.now();
    const documentsInFlight = inFlight();
    const part: Part = stack.parts[kind]![replica]!;
    const at = `${((killedAt - startedAt) / 1000).toFixed(1)} s`;
    const down = `${(downMs / 1000).toFixed(1)} s`;
    log(
      `fault ${injected.length + 1}/${schedule.length}: SIGKILL ${part.name} at ${at}, down ${down}, ${documentsInFlight} documents in flight`,
    );
    await part.kill();
    await pause(downMs);
    await part.start();
    injected.push({
      kind,
      part: part.name,
      atMs: killedAt - startedAt,
      downMs,
      recoveredAfterMs: Date.now() - killedAt,
      documentsInFlight,
    });
  }
  return injected;
}
