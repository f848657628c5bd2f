// Fiscal sync imports through the one ingestion path (`importFiscalDocument`): the same parse, transaction,
// `document.created` and lifecycle start as a manual import, idempotent by fiscal reference. Files that do not parse
// or that the company cannot take are counted as skipped and recorded in the intake log, never fatal; anything else
// (the database down) is thrown so the activity is retried, and a file that still fails on the activity's last
// attempts is recorded as `import_failed` and passed over, so that one file never holds the others back.
import { Context } from '@temporalio/activity';
import { FiscalDocumentError } from '../../fiscal/errors.ts';
import { countSkips, type SkippedEntry, type XmlFile } from '../../fiscal/package-entries.ts';
import type { Orm } from '../../db/orm.ts';
import { ImportRejected, importFiscalDocument, type ImportDeps } from '../documents/import-fiscal-document.ts';
import { recordRefusals } from './intake-refusals.ts';
import type { ImportCounts } from './runs.ts';

/**
 * From this attempt of the activity on (of 10, a few minutes of back-off in), a file failing for a reason not foreseen
 * is recorded and passed over. An outage of the database fails the recording too, so it still holds the sync back.
 */
export const PASS_OVER_FROM_ATTEMPT = 8;

/** Where a long import stands, heartbeated so that a retry on another worker resumes instead of recounting. */
export interface ImportProgress {
  /** Which unit of work (a package, a mailbox item) and how far into its files. */
  unit: number;
  file: number;
  counts: ImportCounts;
}

/**
 * Heartbeats `details()` every 2 s until stopped, so that long steps without a natural beat (a download, a slow
 * database) still tell Temporal the worker is alive, and a dead worker's attempt is retried within the heartbeat timeout.
 */
export function keepHeartbeating(details: () => unknown = () => undefined, everyMs = 2_000): () => void {
  const context = Context.current();
  context.heartbeat(details());
  const timer = setInterval(() => context.heartbeat(details()), everyMs);
  return () => clearInterval(timer);
}

/** Runs work while heartbeating. */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const stop = keepHeartbeating();
  try {
    return await work();
  } finally {
    stop();
  }
}

/** The progress an earlier attempt of this activity heartbeated, if any. */
export function resumedProgress(): ImportProgress | null {
  const details = Context.current().info.heartbeatDetails as ImportProgress | undefined;
  return details && typeof details.unit === 'number' ? details : null;
}

/**
 * Takes what one e-mail or package holds: its skipped entries counted and logged (on the unit's first pass only, so a
 * resumed attempt does not count them twice), then its files imported from where `progress` stands.
 */
export async function importFound(
  deps: ImportDeps,
  companyId: string,
  found: { files: readonly XmlFile[]; skipped: readonly SkippedEntry[] },
  progress: ImportProgress,
): Promise<void> {
  if (progress.file === 0) await passOver(deps.orm, companyId, progress.counts, found.skipped);
  await importFiles(deps, companyId, found.files, progress.counts, progress.file, (next) => {
    progress.file = next;
  });
}

/** Counts entries passed over and records them in the intake log; macOS metadata is packaging, not a refused file. */
export async function passOver(
  orm: Orm,
  companyId: string,
  counts: ImportCounts,
  skipped: readonly SkippedEntry[],
): Promise<void> {
  countSkips(counts.skipped, skipped);
  await recordRefusals(
    orm,
    companyId,
    skipped.filter((entry) => entry.reason !== 'macos_metadata'),
  );
}

/**
 * Imports files for a company, adding to `counts`; payment receipts whose paid documents were not known yet are tried
 * again once the others are in (a package lists files in no particular order). `onFile` runs after each file.
 */
export async function importFiles(
  deps: ImportDeps,
  companyId: string,
  files: readonly XmlFile[],
  counts: ImportCounts,
  from: number,
  onFile: (next: number) => void,
): Promise<void> {
  const pendingComplements: XmlFile[] = [];
  for (let index = from; index < files.length; index++) {
    const file = files[index]!;
    const outcome = await importOne(deps, companyId, file, counts);
    if (outcome === 'complement_pending') pendingComplements.push(file);
    onFile(index + 1);
  }
  for (const file of pendingComplements) await importOne(deps, companyId, file, noCount());
}

const noCount = (): ImportCounts => ({ created: 0, existing: 0, complements: 0, skipped: {} });

async function importOne(
  deps: ImportDeps,
  companyId: string,
  file: XmlFile,
  counts: ImportCounts,
): Promise<'done' | 'complement_pending'> {
  try {
    const result = await importFiscalDocument(deps, {
      companyId,
      fileName: file.name,
      xml: file.bytes,
      source: 'fiscal',
    });
    if (result.kind === 'payment_complement') {
      counts.complements += 1;
      return result.unknownDocuments.length ? 'complement_pending' : 'done';
    }
    if (result.created) counts.created += 1;
    else counts.existing += 1;
  } catch (error) {
    const reason =
      error instanceof FiscalDocumentError
        ? 'invalid_document'
        : error instanceof ImportRejected
          ? 'refused'
          : Context.current().info.attempt >= PASS_OVER_FROM_ATTEMPT
            ? 'import_failed'
            : null;
    if (!reason) throw error;
    await recordRefusals(deps.orm, companyId, [
      { name: file.name, reason, detail: (error as Error).message, bytes: file.bytes },
    ]);
    counts.skipped[reason] = (counts.skipped[reason] ?? 0) + 1;
  }
  return 'done';
}
