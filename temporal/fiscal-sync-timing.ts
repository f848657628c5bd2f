import type { FiscalSyncTiming } from '../workflows/fiscal-sync.ts';

export type { FiscalSyncTiming };

/** Production pacing: verify a SAT extraction after 30 s, then every 45 and 60 s; give up after 96 hours (SAT can take 72). */
export const DEFAULT_FISCAL_SYNC_TIMING: FiscalSyncTiming = {
  pollInitialMs: 30_000,
  pollMaxMs: 60_000,
  giveUpAfterMs: 96 * 3_600_000,
};

const VARIABLES = {
  FISCAL_SYNC_POLL_MS: 'pollInitialMs',
  FISCAL_SYNC_POLL_MAX_MS: 'pollMaxMs',
  FISCAL_SYNC_GIVE_UP_MS: 'giveUpAfterMs',
} as const;

/** The pacing of fiscal-sync workflows, from `FISCAL_SYNC_*` variables over the defaults; checked at boot. */
export function fiscalSyncTimingFromEnv(env: NodeJS.ProcessEnv = process.env): FiscalSyncTiming {
  const timing: FiscalSyncTiming = { ...DEFAULT_FISCAL_SYNC_TIMING };
  for (const [variable, field] of Object.entries(VARIABLES)) {
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
