import type { z } from 'zod';
import type { FiscalSyncRun } from '../../db/fiscal/fiscal-sync-run.entity.ts';
import type { FiscalSyncAccepted, FiscalSyncStatus } from '../schemas/fiscal-sync.ts';

/** The 202 answer of POST /fiscal-sync. */
export function presentAccepted(run: FiscalSyncRun, extractionId: string | null): z.input<typeof FiscalSyncAccepted> {
  const common = {
    status: 'accepted' as const,
    started_at: run.startedAt.toISOString(),
    sync_from: run.syncFrom,
    sync_to: run.syncTo,
  };
  return run.country === 'MEX'
    ? { country: 'MEX', ...common, extraction_id: extractionId ?? run.extractionId ?? '' }
    : { country: 'COL', ...common };
}

/** Mexico: where the latest extraction stands. */
export function presentMexicanStatus(run: FiscalSyncRun | null): z.input<typeof FiscalSyncStatus> {
  if (!run)
    return {
      country: 'MEX',
      status: 'not_started',
      fetching_status: null,
      from: null,
      to: null,
      extraction_id: null,
      error_code: null,
    };
  return {
    country: 'MEX',
    status: run.status,
    fetching_status: run.fetchingStatus ?? null,
    from: run.syncFrom,
    to: run.syncTo,
    extraction_id: run.extractionId ?? null,
    error_code: run.status === 'failed' ? (run.errorCode ?? null) : null,
  };
}

/** Colombia: pending while a sync started since `since` runs; else how the latest of them ended. */
export function presentColombianStatus(runs: FiscalSyncRun[], since: Date): z.input<typeof FiscalSyncStatus> {
  const running = runs.find((run) => run.status !== 'finished' && run.status !== 'failed');
  if (running)
    return {
      country: 'COL',
      status: 'pending',
      message: running.message ?? `Synchronising e-mail from ${running.syncFrom} to ${running.syncTo}`,
    };
  const latest = runs[0];
  if (!latest)
    return {
      country: 'COL',
      status: 'finished',
      message: `No fiscal synchronisation was started since ${since.toISOString()}; nothing is pending`,
    };
  if (latest.status === 'failed')
    return {
      country: 'COL',
      status: 'failed',
      message: `${latest.message ?? 'The synchronisation failed'}${latest.errorCode ? ` (${latest.errorCode})` : ''}`,
    };
  return {
    country: 'COL',
    status: 'finished',
    message: latest.message ?? `Synchronised e-mail from ${latest.syncFrom} to ${latest.syncTo}`,
  };
}
