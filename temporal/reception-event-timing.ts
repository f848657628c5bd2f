import type { ReceptionEventTiming } from '../db/reception-events/reception-event-batch.entity.ts';

export type { ReceptionEventTiming };

/**
 * Production pacing: a waiting event is woken by the one it waits for, and re-checks anyway from 5 s up to every 5 min,
 * for a week at most; transient DIAN failures are retried 10 times over about 20 minutes.
 */
export const DEFAULT_RECEPTION_EVENT_TIMING: ReceptionEventTiming = {
  wait: { initialMs: 5_000, maxMs: 300_000, giveUpMs: 7 * 24 * 3_600_000 },
  submit: { initialMs: 5_000, maxMs: 300_000, attempts: 10, timeoutMs: 30_000 },
};

const VARIABLES = {
  RECEPTION_EVENT_WAIT_MS: ['wait', 'initialMs'],
  RECEPTION_EVENT_WAIT_MAX_MS: ['wait', 'maxMs'],
  RECEPTION_EVENT_WAIT_GIVE_UP_MS: ['wait', 'giveUpMs'],
  RECEPTION_EVENT_RETRY_MS: ['submit', 'initialMs'],
  RECEPTION_EVENT_RETRY_MAX_MS: ['submit', 'maxMs'],
  RECEPTION_EVENT_ATTEMPTS: ['submit', 'attempts'],
} as const;

/** The pacing of reception-event workflows, from `RECEPTION_EVENT_*` variables over the defaults; checked at boot. */
export function receptionEventTimingFromEnv(env: NodeJS.ProcessEnv = process.env): ReceptionEventTiming {
  const timing: ReceptionEventTiming = {
    wait: { ...DEFAULT_RECEPTION_EVENT_TIMING.wait },
    submit: { ...DEFAULT_RECEPTION_EVENT_TIMING.submit },
  };
  for (const [variable, [group, field]] of Object.entries(VARIABLES)) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1)
      throw new Error(`${variable} must be a positive integer, not ${JSON.stringify(value)}`);
    (timing[group] as Record<string, number>)[field] = number;
  }
  return timing;
}

/** How often the sweep hands over batches whose workflow never started (and how old such a batch must be). */
export function receptionEventSweepMsFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.RECEPTION_EVENT_SWEEP_MS ?? '60000';
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1000)
    throw new Error(
      `RECEPTION_EVENT_SWEEP_MS must be a whole number of milliseconds, at least 1000, not ${JSON.stringify(value)}`,
    );
  return number;
}
