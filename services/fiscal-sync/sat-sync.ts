// Mexico: the activities of a fiscal sync with the SAT extraction provider: create the extraction, verify it, and
// download and import each package of CFDI.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import type { IntakeLimits } from '../../fiscal/intake-limits.ts';
import { packageEntries } from '../../fiscal/package-entries.ts';
import { extractionStep, type ExtractionStep } from '../../fiscal/sat-request-state.ts';
import { ArchiveRefused } from '../../fiscal/zip-reader.ts';
import type { ImportDeps } from '../documents/import-fiscal-document.ts';
import { importEntries, keepHeartbeating, newProgress, resumedProgress } from './import-files.ts';
import { loadRun, recordSyncProgress, type ImportCounts, type SyncSubject } from './runs.ts';
import { providerRefused, type SatProviderClient } from './sat-provider-client.ts';

export interface SatSyncDeps extends ImportDeps {
  provider: SatProviderClient;
  /** The caps on reading packages. */
  intake: IntakeLimits;
}

/**
 * Asks the provider for an extraction of the run's window (the run id is the idempotency key, so a retry finds the
 * same extraction) and records its id. A CIEC the provider reports as refused marks the company's CIEC invalid.
 */
export async function createSatExtraction(deps: SatSyncDeps, subject: SyncSubject): Promise<{ extractionId: string }> {
  const { em, run } = await loadRun(deps.orm, subject);
  if (run.extractionId) return { extractionId: run.extractionId };
  const credential = await em.findOne(FiscalCredential, {});
  if (!credential?.rfc)
    throw ApplicationFailure.nonRetryable('No RFC is registered for the company', 'SatProviderRefused', {
      code: 'sat_credentials_not_configured',
    });
  try {
    const extraction = await deps.provider.createExtraction({
      rfc: credential.rfc,
      from: run.syncFrom,
      to: run.syncTo,
      idempotencyKey: run.id,
    });
    await recordSyncProgress(deps.orm, {
      ...subject,
      extractionId: extraction.id,
      status: 'pending',
      message: `Extraction ${extraction.id} created with the SAT provider`,
    });
    return { extractionId: extraction.id };
  } catch (error) {
    if (
      error instanceof ApplicationFailure &&
      (error.details?.[0] as { code?: string } | undefined)?.code === 'invalid_credentials'
    ) {
      credential.satCiecStatus = 'invalid';
      await em.flush();
    }
    throw error;
  }
}

/** Verifies the extraction with the provider and records where it stands; answers the poller's next step. */
export async function checkSatExtraction(
  deps: SatSyncDeps,
  input: SyncSubject & { extractionId: string },
): Promise<ExtractionStep & { cfdiCount: number | null }> {
  const extraction = await deps.provider.getExtraction(input.extractionId);
  const step = extractionStep(extraction);
  if (step.kind === 'poll') await recordSyncProgress(deps.orm, { ...input, status: step.status });
  if (step.kind === 'download')
    await recordSyncProgress(deps.orm, {
      ...input,
      status: 'running',
      fetchingStatus: 'pending',
      message: `SAT finished the request: ${extraction.cfdiCount ?? 'some'} CFDI in ${step.packageIds.length} package(s)`,
    });
  if (extraction.errorCode === 'invalid_credentials') {
    const { em } = await loadRun(deps.orm, input);
    const credential = await em.findOne(FiscalCredential, {});
    if (credential) credential.satCiecStatus = 'invalid';
    await em.flush();
  }
  return { ...step, cfdiCount: extraction.cfdiCount };
}

/**
 * Downloads one package to a file and imports its CFDI entry by entry, so that a package of any size takes the memory
 * of one entry; junk entries (macOS metadata, empty files, non-XML, XML that is not a stamped CFDI 4.0) are skipped and
 * counted. Heartbeats its progress, so a retry resumes at the entry where a dead worker stopped.
 */
export async function importSatPackage(
  deps: SatSyncDeps,
  input: SyncSubject & { extractionId: string; packageId: string; index: number },
): Promise<ImportCounts> {
  const resumed = resumedProgress();
  const progress = resumed?.unit === input.index ? resumed : newProgress(input.index);
  const stop = keepHeartbeating(() => progress);
  const folder = await mkdtemp(join(tmpdir(), 'ap-sat-package-'));
  try {
    await recordSyncProgress(deps.orm, { ...input, fetchingStatus: 'running' });
    const path = join(folder, 'package.zip');
    await deps.provider.downloadPackage(input.extractionId, input.packageId, path);
    await packageRead(input.packageId, () =>
      importEntries(deps, input.companyId, () => packageEntries({ path }, deps.intake), progress),
    );
    return progress.counts;
  } finally {
    stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/** Runs the reading of a package; a package that cannot be opened, or whose directory breaks off, fails the attempt. */
async function packageRead(packageId: string, read: () => Promise<void>): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (!(error instanceof ArchiveRefused)) throw error;
    const message = `Package ${packageId}: ${error.message}`;
    // Past a cap it will not shrink; a truncated download reads as a broken archive, retried like any failed download.
    if (error.refusal.reason === 'too_large') throw providerRefused('package_too_large', message);
    throw ApplicationFailure.retryable(message, 'PackageUnreadable', { code: 'package_unreadable' });
  }
}
