// Fiscal sync imports through the one ingestion path (`importFiscalDocument`): the same parse, transaction,
// `document.created` and lifecycle start as a manual import, idempotent by fiscal reference. Files that do not parse
// or that the company cannot take are counted as skipped, never fatal; anything else (the database down) is thrown
// so the activity is retried.
import { Context } from '@temporalio/activity';
import { FiscalDocumentError } from '../../fiscal/errors.ts';
import type { XmlFile } from '../../fiscal/package-entries.ts';
import { ImportRejected, importFiscalDocument, type ImportDeps } from '../documents/import-fiscal-document.ts';
import type { ImportCounts } from './runs.ts';

const utf8 = new TextDecoder('utf-8');

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
      xml: utf8.decode(file.bytes),
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
      error instanceof FiscalDocumentError ? 'invalid_document' : error instanceof ImportRejected ? 'refused' : null;
    if (!reason) throw error;
    counts.skipped[reason] = (counts.skipped[reason] ?? 0) + 1;
  }
  return 'done';
}
