// Writers of a fiscal sync's read state (its `fiscal_sync_runs` row), called by the sync workflow's activities.
import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import { FiscalSyncRun, type FetchingStatus, type SyncStatus } from '../../db/fiscal/fiscal-sync-run.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import type { SkipCounts } from '../../fiscal/package-entries.ts';
import { Refusal } from '../../platform/refusal.ts';

export interface SyncSubject {
  companyId: string;
  runId: string;
}

/** What an import found, summed over packages or e-mails. */
export interface ImportCounts {
  /** New documents (each emitted `document.created`). */
  created: number;
  /** Documents the company already had (an earlier sync, a manual import). */
  existing: number;
  /** Mexican payment receipts recorded against the documents they pay. */
  complements: number;
  /** Entries passed over, and SAT packages refused whole, by reason. */
  skipped: SkipCounts & Partial<Record<PackageRefusalReason, number>>;
}

/**
 * Why a whole SAT package was refused (recorded in the intake log under its id, the sync going on with the next):
 * `package_too_large` past INTAKE_MAX_PACKAGE_BYTES (or the archive caps of a package as a whole), `package_unreadable`
 * not a ZIP that can be opened.
 */
export type PackageRefusalReason = 'package_too_large' | 'package_unreadable';

export const noCounts = (): ImportCounts => ({ created: 0, existing: 0, complements: 0, skipped: {} });

export const skippedTotal = (counts: ImportCounts) =>
  Object.values(counts.skipped).reduce((sum, count) => sum + (count ?? 0), 0);

const TERMINAL: readonly SyncStatus[] = ['finished', 'failed'];

/** The run, read for its company; missing means the API withdrew it (the sync never started): stop, do not retry. */
export async function loadRun(orm: Orm, subject: SyncSubject) {
  const em = companyEm(orm, subject.companyId);
  const run = await em.findOne(FiscalSyncRun, { id: subject.runId });
  if (!run) throw new Refusal('FiscalSyncRunMissing', `Fiscal sync ${subject.runId} does not exist`);
  return { em, run };
}

/** Moves a running sync on (status, fetching status, extraction id, a message); a finished or failed one stays put. */
export async function recordSyncProgress(
  orm: Orm,
  input: SyncSubject & {
    status?: SyncStatus;
    fetchingStatus?: FetchingStatus | null;
    extractionId?: string;
    message?: string;
  },
): Promise<void> {
  const { em, run } = await loadRun(orm, input);
  if (TERMINAL.includes(run.status)) return;
  if (input.status) run.status = input.status;
  if (input.fetchingStatus !== undefined) run.fetchingStatus = input.fetchingStatus;
  if (input.extractionId) run.extractionId = input.extractionId;
  if (input.message) run.message = input.message;
  await em.flush();
}

/**
 * Records what an import has done so far, after each package or e-mail: a run that fails later (its outcome carries no
 * counts) still says what it imported.
 */
export async function recordImportCounts(orm: Orm, subject: SyncSubject, counts: ImportCounts): Promise<void> {
  const { em, run } = await loadRun(orm, subject);
  if (TERMINAL.includes(run.status)) return;
  applyCounts(run, counts);
  await em.flush();
}

function applyCounts(run: FiscalSyncRun, counts: ImportCounts): void {
  run.documentsImported = counts.created;
  run.entriesSkipped = skippedTotal(counts);
  const metadata = run.details?.['metadata'];
  run.details = {
    documents_created: counts.created,
    documents_existing: counts.existing,
    payment_complements: counts.complements,
    skipped: counts.skipped,
    // What SAT's metadata did, written by its own packages (recordMetadataProgress): kept.
    ...(metadata ? { metadata } : {}),
  };
}

/**
 * Records what SAT's metadata did (Mexico), under `details.metadata`: the extraction, what stopped it if anything, and
 * each package's counts by id (a package read again replaces its own), with their totals. The import's counts stay.
 */
export async function recordMetadataProgress(
  orm: Orm,
  subject: SyncSubject,
  change: { extractionId: string; error?: string; packageId?: string; counts?: Record<string, unknown> },
): Promise<void> {
  const { em, run } = await loadRun(orm, subject);
  if (TERMINAL.includes(run.status)) return;
  const current = (run.details?.['metadata'] ?? {}) as { packages?: Record<string, Record<string, unknown>> };
  const packages = { ...current.packages };
  if (change.packageId && change.counts) packages[change.packageId] = change.counts;
  const totals: Record<string, number> = {};
  for (const counts of Object.values(packages))
    for (const [key, value] of Object.entries(counts))
      if (typeof value === 'number') totals[key] = (totals[key] ?? 0) + value;
  run.details = {
    ...run.details,
    metadata: {
      ...current,
      extraction_id: change.extractionId,
      ...(change.error ? { error: change.error } : {}),
      ...totals,
      packages,
    },
  };
  await em.flush();
}

export interface SyncOutcome extends SyncSubject {
  status: 'finished' | 'failed';
  fetchingStatus?: FetchingStatus | null;
  errorCode?: string | null;
  message: string;
  counts?: ImportCounts;
  /** Colombia: a finished sync moves the company's next window on (it starts the day after this run started). */
  advanceLastSync?: boolean;
}

/** A sync's end as this call wrote it, for the worker's metrics. */
export interface RecordedOutcome {
  country: FiscalSyncRun['country'];
  status: SyncOutcome['status'];
  errorCode: string | null;
  documentsImported: number;
  /** From the request (started_at) to the outcome. */
  seconds: number;
}

/**
 * Records how a sync ended, with what it imported; idempotent (a retried write changes nothing more). Answers what it
 * wrote, or null when the outcome was already there, so that each sync is counted once.
 */
export async function recordSyncOutcome(orm: Orm, input: SyncOutcome): Promise<RecordedOutcome | null> {
  const { em, run } = await loadRun(orm, input);
  if (TERMINAL.includes(run.status)) return null;
  return em.transactional(async (tx) => {
    const current = await tx.findOneOrFail(FiscalSyncRun, { id: run.id });
    current.status = input.status;
    if (input.fetchingStatus !== undefined) current.fetchingStatus = input.fetchingStatus;
    // A sync that fails while downloading fetches nothing more: its fetching ends with it.
    else if (current.fetchingStatus === 'pending' || current.fetchingStatus === 'running')
      current.fetchingStatus = 'finished';
    current.errorCode = input.errorCode ?? null;
    current.message = input.message;
    current.finishedAt = new Date();
    if (input.counts) applyCounts(current, input.counts);
    if (input.advanceLastSync && input.status === 'finished') {
      const credential = await tx.findOne(FiscalCredential, { company: input.companyId });
      if (credential && (!credential.lastSyncAt || credential.lastSyncAt < current.startedAt))
        credential.lastSyncAt = current.startedAt;
    }
    return {
      country: current.country,
      status: input.status,
      errorCode: current.errorCode,
      documentsImported: current.documentsImported,
      seconds: (current.finishedAt.getTime() - current.startedAt.getTime()) / 1000,
    };
  });
}
