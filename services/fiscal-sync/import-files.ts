// Fiscal sync imports through the one ingestion path (`importFiscalDocument`): the same parse, transaction,
// `document.created` and lifecycle start as a manual import, idempotent by fiscal reference. Files that do not parse
// or that the company cannot take are counted as skipped and recorded in the intake log, never fatal; anything else
// (the database down) is thrown so the activity is retried, and a file that still fails on the activity's last
// attempts is recorded as `import_failed` and passed over, so that one file never holds the others back.
import { FiscalDocumentError } from '../../fiscal/errors.ts';
import { countSkips, type SkippedEntry, type XmlFile } from '../../fiscal/package-entries.ts';
import type { Orm } from '../../db/orm.ts';
import { storableText } from '../../fiscal/storable-text.ts';
import { ImportRejected, importFiscalDocument, type ImportDeps } from '../documents/import-fiscal-document.ts';
import type { Attempt } from '../attempt.ts';
import { recordRefusals } from './intake-refusals.ts';
import { noCounts, type ImportCounts } from './runs.ts';

/**
 * From this attempt of the activity on (of 10, a few minutes of back-off in), a file failing for a reason not foreseen
 * is recorded and passed over. An outage of the database fails the recording too, so it still holds the sync back.
 */
export const PASS_OVER_FROM_ATTEMPT = 8;

/** Where a long import stands, heartbeated so that a retry on another worker resumes instead of recounting. */
export interface ImportProgress {
  /** Which unit of work (a package, a mailbox item). */
  unit: number;
  /** How many of the unit's entries are done. */
  file: number;
  /** The unit's entries (by position) holding payment receipts whose paid documents were not known yet. */
  pending: number[];
  counts: ImportCounts;
}

export const newProgress = (unit = 0): ImportProgress => ({ unit, file: 0, pending: [], counts: noCounts() });

/** Moves `progress` to the start of another unit, its counts kept. */
export function startUnit(progress: ImportProgress, unit: number): void {
  Object.assign(progress, { unit, file: 0, pending: [] });
}

/** The progress an earlier attempt of this activity reported, if any. */
export function resumedProgress(attempt: Attempt): ImportProgress | null {
  const details = attempt.resumed as ImportProgress | undefined;
  return details && typeof details.unit === 'number' ? details : null;
}

/** What a sync's import reads with: the documents ingestion, and the attempt it runs in. */
export interface SyncImportDeps extends ImportDeps {
  attempt: Attempt;
}

/** One entry of a unit of work: read (inflated, decoded) only when taken, so an entry already done is not read again. */
export interface IntakeEntry {
  take(): Promise<XmlFile | SkippedEntry>;
}

/**
 * Takes a unit's entries in order from where `progress` stands: each XML file is read, imported and let go before the
 * next, so a unit of any size holds one entry at a time, and each entry passed over is counted and logged as it comes.
 * Payment receipts whose paid documents were not known yet are tried again once the others are in (a package lists
 * files in no particular order); `entries` is called again for them.
 */
export async function importEntries(
  deps: SyncImportDeps,
  companyId: string,
  entries: () => AsyncIterable<IntakeEntry> | Iterable<IntakeEntry>,
  progress: ImportProgress,
): Promise<void> {
  let position = 0;
  for await (const entry of entries()) {
    if (position++ < progress.file) continue;
    const taken = await entry.take();
    if ('bytes' in taken) {
      if ((await importOne(deps, companyId, taken, progress.counts)) === 'complement_pending')
        progress.pending.push(position - 1);
    } else await passOver(deps.orm, companyId, progress.counts, [taken]);
    progress.file = position;
  }
  if (progress.pending.length === 0) return;
  const pending = new Set(progress.pending);
  position = 0;
  for await (const entry of entries()) {
    if (!pending.has(position++)) continue;
    const taken = await entry.take();
    if ('bytes' in taken) await importOne(deps, companyId, taken, noCounts());
  }
  progress.pending = [];
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

async function importOne(
  deps: SyncImportDeps,
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
          : deps.attempt.number >= PASS_OVER_FROM_ATTEMPT
            ? 'import_failed'
            : null;
    if (!reason) throw error;
    // With the refusal's code; an error not foreseen may quote anything, and the pass-over must not fail for it.
    const message = String((error as Error | undefined)?.message ?? error);
    const detail = storableText(
      error instanceof FiscalDocumentError || error instanceof ImportRejected ? `${error.code}: ${message}` : message,
    );
    await recordRefusals(deps.orm, companyId, [{ name: file.name, reason, detail, bytes: file.bytes }]);
    counts.skipped[reason] = (counts.skipped[reason] ?? 0) + 1;
  }
  return 'done';
}
