import type { ReceptionEventTiming } from '../db/reception-events/reception-event-batch.entity.ts';
import type { FiscalSyncTiming } from '../workflows/fiscal-sync.ts';

export type { FiscalSyncTiming, ReceptionEventTiming };

// The pacing of the product's processes, read from the environment over production defaults and checked at start:
// tests and the fault runs shorten them, never by mocking time.

/**
 * Production pacing: a waiting event is woken by the one it waits for, and re-checks anyway from 5 s up to every 5 min,
 * for a week at most; transient DIAN failures are retried 10 times over about 20 minutes.
 */
export const DEFAULT_RECEPTION_EVENT_TIMING: ReceptionEventTiming = {
  wait: { initialMs: 5_000, maxMs: 300_000, giveUpMs: 7 * 24 * 3_600_000 },
  submit: { initialMs: 5_000, maxMs: 300_000, attempts: 10, timeoutMs: 30_000 },
};

const RECEPTION_EVENT_VARIABLES = {
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
  for (const [variable, [group, field]] of Object.entries(RECEPTION_EVENT_VARIABLES)) {
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

/** Production pacing: verify a SAT extraction after 30 s, then every 45 and 60 s; give up after 96 hours (SAT can take 72). */
export const DEFAULT_FISCAL_SYNC_TIMING: FiscalSyncTiming = {
  pollInitialMs: 30_000,
  pollMaxMs: 60_000,
  giveUpAfterMs: 96 * 3_600_000,
};

const FISCAL_SYNC_VARIABLES = {
  FISCAL_SYNC_POLL_MS: 'pollInitialMs',
  FISCAL_SYNC_POLL_MAX_MS: 'pollMaxMs',
  FISCAL_SYNC_GIVE_UP_MS: 'giveUpAfterMs',
} as const;

/** The pacing of fiscal-sync workflows, from `FISCAL_SYNC_*` variables over the defaults; checked at boot. */
export function fiscalSyncTimingFromEnv(env: NodeJS.ProcessEnv = process.env): FiscalSyncTiming {
  const timing: FiscalSyncTiming = { ...DEFAULT_FISCAL_SYNC_TIMING };
  for (const [variable, field] of Object.entries(FISCAL_SYNC_VARIABLES)) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    const number = Number(value);
    if (!Number.isInteger(number) || number < 1)
      throw new Error(`${variable} must be a positive integer, not ${JSON.stringify(value)}`);
    timing[field] = number;
  }
  if (timing.pollMaxMs < timing.pollInitialMs)
    throw new Error('FISCAL_SYNC_POLL_MAX_MS must not be below FISCAL_SYNC_POLL_MS');
  return timing;
}

/** How often a payment's workflow asks the gateway about its transfer, and a validation the validation service. */
export interface PollIntervals {
  paymentMs: number;
  bankValidationMs: number;
}

export function pollIntervalsFromEnv(env: NodeJS.ProcessEnv = process.env): PollIntervals {
  const read = (variable: string) => {
    const value = Number(env[variable] ?? 30_000);
    if (!Number.isInteger(value) || value < 1)
      throw new Error(`${variable} must be a positive integer of milliseconds`);
    return value;
  };
  return { paymentMs: read('PAYMENT_POLL_INTERVAL_MS'), bankValidationMs: read('BANK_VALIDATION_POLL_INTERVAL_MS') };
}

/**
 * For tests only: how long each day ahead of a payment's pay date lasts (`PAYMENT_DAY_MS`), so that a payment dated in
 * a week goes in seconds. Unset, days are days: a payment goes at the start of its date where the company is.
 */
export function paymentDayMsFromEnv(env: NodeJS.ProcessEnv = process.env): number | null {
  const value = env.PAYMENT_DAY_MS;
  if (value === undefined || value === '') return null;
  // A shortened day would pay ahead of the date the company chose.
  if (env.NODE_ENV === 'production') throw new Error('PAYMENT_DAY_MS is for tests: it is refused in production');
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1)
    throw new Error(`PAYMENT_DAY_MS must be a positive integer of milliseconds, not ${JSON.stringify(value)}`);
  return number;
}
