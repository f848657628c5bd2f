// Mexico: the activities of a fiscal sync with the SAT extraction provider: create the extraction, verify it, and
// download and import each package of CFDI. Beside the CFDI, SAT's metadata of the company's received CFDI is asked
// for (a second extraction of the same run): it is what says which were cancelled, and it is applied once the CFDI
// are in. Its packages follow the CFDI packages in the list the workflow downloads (`metadata:<packageId>`), so the
// workflow's loop takes them as it takes any package.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Refusal } from '../../platform/refusal.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import { FiscalSyncRun } from '../../db/fiscal/fiscal-sync-run.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { IntakeLimits } from '../../fiscal/intake-limits.ts';
import { packageEntries } from '../../fiscal/package-entries.ts';
import { metadataEntryRefusal, metadataPackageEntries, type MetadataSkipReason } from '../../fiscal/sat-metadata.ts';
import { extractionStep, type ExtractionStep } from '../../fiscal/sat-request-state.ts';
import { dateInZone, isoInZone, MEXICO_CITY } from '../../fiscal/sync-window.ts';
import { ArchiveRefused } from '../../fiscal/zip-reader.ts';
import { applySatMetadata, emptyReport, type MetadataReport } from '../documents/sat-cancellations.ts';
import { importEntries, newProgress, resumedProgress, type SyncImportDeps } from './import-files.ts';
import { recordRefusals } from './intake-refusals.ts';
import { storableName, storableText } from '../../fiscal/storable-text.ts';
import {
  loadRun,
  noCounts,
  recordMetadataProgress,
  recordSyncProgress,
  type ImportCounts,
  type PackageRefusalReason,
  type SyncSubject,
} from './runs.ts';
import { providerRefused, type DownloadedPackage, type SatProviderClient } from './sat-provider-client.ts';

/** How a metadata package's id is passed from the verification to the download. */
export const METADATA_PACKAGE = 'metadata:';

export interface SatSyncDeps extends SyncImportDeps {
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
  if (run.extractionId && run.metadataExtractionId) return { extractionId: run.extractionId };
  const credential = await em.findOne(FiscalCredential, {});
  if (!credential?.rfc) throw providerRefused('sat_credentials_not_configured', 'No RFC is registered for the company');
  try {
    let extractionId = run.extractionId;
    if (!extractionId) {
      const extraction = await deps.provider.createExtraction({
        rfc: credential.rfc,
        from: run.syncFrom,
        to: run.syncTo,
        idempotencyKey: run.id,
      });
      extractionId = extraction.id;
      await recordSyncProgress(deps.orm, {
        ...subject,
        extractionId,
        status: 'pending',
        message: `Extraction ${extractionId} created with the SAT provider`,
      });
    }
    // The metadata of every received CFDI whose cancellation still matters, whatever its status (see below).
    const metadata = await deps.provider.createExtraction({
      rfc: credential.rfc,
      from: await metadataWindowStart(em, run),
      to: run.syncTo,
      idempotencyKey: `${run.id}/metadata`,
      format: 'metadata',
    });
    await em.nativeUpdate(FiscalSyncRun, { id: run.id }, { metadataExtractionId: metadata.id });
    return { extractionId };
  } catch (error) {
    if (error instanceof Refusal && error.details.code === 'invalid_credentials') {
      credential.satCiecStatus = 'invalid';
      await em.flush();
    }
    throw error;
  }
}

/**
 * The start of the metadata window: SAT lists CFDI by their date of issue, and a CFDI is cancelled any time after it,
 * so the window reaches back to the oldest received CFDI of the company that is neither cancelled nor paid (whose
 * cancellation would still stop a payment), never after the sync's own window, and never before SAT's bound (six years
 * back). SAT allows a metadata request of the same period any number of times, and up to a million CFDI.
 */
async function metadataWindowStart(em: EntityManager, run: FiscalSyncRun): Promise<string> {
  const oldest = await em.findOne(
    Document,
    { country: 'MEX', isCanceled: false, paymentStatus: { $ne: 'paid' }, issueDate: { $ne: null } },
    { orderBy: { issueDate: 'asc' }, fields: ['issueDate'] },
  );
  const [year, month, day] = dateInZone(run.startedAt, MEXICO_CITY).split('-').map(Number) as [number, number, number];
  // 00:00 in Mexico City (UTC-6) of the day after the same day six years back.
  const bound = Date.UTC(year - 6, month - 1, day + 1, 6);
  const from = Math.max(bound, Math.min(Date.parse(run.syncFrom), oldest?.issueDate?.getTime() ?? Infinity));
  return isoInZone(new Date(from), MEXICO_CITY);
}

/** Where the metadata extraction stands once the CFDI are ready: its packages, still running, or why it stopped. */
async function metadataStep(deps: SatSyncDeps, extractionId: string): Promise<ExtractionStep> {
  try {
    return extractionStep(await deps.provider.getExtraction(extractionId));
  } catch (error) {
    // Gone, or refused for good: the CFDI are still imported; the next sync asks again (its window reaches as far).
    if (error instanceof Refusal && !error.retryable)
      return { kind: 'failed', errorCode: 'metadata_unavailable', message: error.message };
    throw error;
  }
}

/**
 * Verifies the extraction, and the metadata extraction with it, with the provider and records where they stand; answers
 * the poller's next step. Once the CFDI are ready the sync waits for the metadata too, then downloads its packages after
 * the CFDI's. A metadata extraction that fails is recorded (`details.metadata.error`) and the CFDI are imported all the
 * same.
 */
export async function checkSatExtraction(
  deps: SatSyncDeps,
  input: SyncSubject & { extractionId: string },
): Promise<ExtractionStep & { cfdiCount: number | null }> {
  const extraction = await deps.provider.getExtraction(input.extractionId);
  let step = extractionStep(extraction);
  let metadataPackages = 0;
  // Verified together, so that the two requests SAT works on at once are waited for once.
  const { run } = await loadRun(deps.orm, input);
  const metadataId = step.kind === 'failed' ? null : run.metadataExtractionId;
  const metadata = metadataId ? await metadataStep(deps, metadataId) : null;
  if (metadata?.kind === 'failed' && !(run.details?.['metadata'] as { error?: string } | undefined)?.error)
    await recordMetadataProgress(deps.orm, input, { extractionId: metadataId!, error: metadata.message });
  if (step.kind === 'download' || step.kind === 'empty') {
    if (metadata?.kind === 'poll') step = { kind: 'poll', status: 'running' };
    if (metadata?.kind === 'download') {
      metadataPackages = metadata.packageIds.length;
      step = {
        kind: 'download',
        packageIds: [
          ...(step.kind === 'download' ? step.packageIds : []),
          ...metadata.packageIds.map((id) => `${METADATA_PACKAGE}${id}`),
        ],
      };
    }
  }
  if (step.kind === 'poll') await recordSyncProgress(deps.orm, { ...input, status: step.status });
  if (step.kind === 'download') {
    const cfdiPackages = step.packageIds.length - metadataPackages;
    await recordSyncProgress(deps.orm, {
      ...input,
      status: 'running',
      fetchingStatus: 'pending',
      message:
        `SAT finished the request: ${extraction.cfdiCount ?? 'some'} CFDI in ${cfdiPackages} package(s)` +
        (metadataPackages ? `, their metadata in ${metadataPackages} package(s)` : ''),
    });
  }
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
 * counted. Heartbeats its progress, so a retry resumes at the entry where a dead worker stopped. A package refused for
 * itself (too large, unreadable) is recorded and counted, and the sync goes on with the next.
 */
export async function importSatPackage(
  deps: SatSyncDeps,
  input: SyncSubject & { extractionId: string; packageId: string; index: number },
): Promise<ImportCounts> {
  if (input.packageId.startsWith(METADATA_PACKAGE)) return applySatMetadataPackage(deps, input);
  const resumed = resumedProgress(deps.attempt);
  const progress = resumed?.unit === input.index ? resumed : newProgress(input.index);
  const stop = deps.attempt.keepReporting(() => progress);
  const folder = await mkdtemp(join(tmpdir(), 'ap-sat-package-'));
  try {
    await recordSyncProgress(deps.orm, { ...input, fetchingStatus: 'running' });
    const path = join(folder, 'package.zip');
    const refusal = await packageRefusal(async () => {
      const downloaded = await deps.provider.downloadPackage(input.extractionId, input.packageId, path);
      await packageRead(deps, input.packageId, downloaded, () =>
        importEntries(deps, input.companyId, () => packageEntries({ path }, deps.intake), progress),
      );
    });
    if (refusal) await refusePackage(deps, input.companyId, input.packageId, refusal, progress.counts);
    return progress.counts;
  } finally {
    stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * From this attempt of the package activity on, a package that cannot be opened is refused even when the provider did
 * not say how long it is (a download cut short could not be told from a damaged package until then).
 */
export const UNREADABLE_REFUSED_FROM_ATTEMPT = 3;

/** A package refused for itself, and why. */
class PackageRefused extends Error {
  readonly reason: PackageRefusalReason;

  constructor(reason: PackageRefusalReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * Runs the reading of a package. One past a cap is refused (it will not shrink); one that cannot be opened, or whose
 * directory breaks off, is refused when its download was whole (the provider said its length and every byte came:
 * downloading it again brings the same bytes), else its attempt fails and it is downloaded again, up to
 * UNREADABLE_REFUSED_FROM_ATTEMPT. Entries imported before the directory broke off stand.
 */
async function packageRead(
  deps: SatSyncDeps,
  packageId: string,
  downloaded: DownloadedPackage,
  read: () => Promise<void>,
): Promise<void> {
  try {
    await read();
  } catch (error) {
    if (!(error instanceof ArchiveRefused)) throw error;
    const message = `Package ${packageId}: ${error.message}`;
    if (error.refusal.reason === 'too_large') throw new PackageRefused('package_too_large', message);
    if (downloaded.complete || deps.attempt.number >= UNREADABLE_REFUSED_FROM_ATTEMPT)
      throw new PackageRefused('package_unreadable', message);
    throw Refusal.retryable('PackageUnreadable', message, { code: 'package_unreadable' });
  }
}

/** Runs a package's download and reading; answers the package's refusal, if it was refused for itself. */
async function packageRefusal(
  work: () => Promise<void>,
): Promise<{ reason: PackageRefusalReason; detail: string } | null> {
  try {
    await work();
    return null;
  } catch (error) {
    if (error instanceof PackageRefused) return { reason: error.reason, detail: error.message };
    // The download's own refusal: the provider said, or sent, more than the package cap.
    if (error instanceof Refusal && error.details.code === 'package_too_large')
      return { reason: 'package_too_large', detail: error.message };
    throw error;
  }
}

/** Records a package's refusal in the intake log (under the package's id) and counts it with the sync's skips. */
async function refusePackage(
  deps: SatSyncDeps,
  companyId: string,
  packageId: string,
  refusal: { reason: PackageRefusalReason; detail: string },
  counts: ImportCounts,
): Promise<void> {
  // The provider names its packages: stored as any outside text is.
  await recordRefusals(deps.orm, companyId, [
    { name: storableName(packageId), reason: refusal.reason, detail: storableText(refusal.detail) },
  ]);
  counts.skipped[refusal.reason] = (counts.skipped[refusal.reason] ?? 0) + 1;
}

/** Where applying a metadata package stands, heartbeated so that a retry resumes at the line a dead worker reached. */
interface MetadataProgress {
  unit: number;
  /** Entries of the package done, and the last line applied of the one under way. */
  entry: number;
  line: number;
  report: MetadataReport;
  skipped: Partial<Record<MetadataSkipReason, number>>;
}

/**
 * Downloads one metadata package and applies each metadata file in it, line by line as it inflates: the company's CFDI
 * SAT lists as cancelled are cancelled, with their pending payments. Junk entries are counted by reason. Records the
 * package's counts under the run's `details.metadata`; the workflow's import counts are left as they are.
 */
async function applySatMetadataPackage(
  deps: SatSyncDeps,
  input: SyncSubject & { packageId: string; index: number },
): Promise<ImportCounts> {
  const packageId = input.packageId.slice(METADATA_PACKAGE.length);
  const { run } = await loadRun(deps.orm, input);
  const extractionId = run.metadataExtractionId;
  if (!extractionId) throw providerRefused('metadata_unavailable', `Run ${run.id} has no metadata extraction`);
  const resumed = deps.attempt.resumed as MetadataProgress | undefined;
  const progress: MetadataProgress =
    resumed?.unit === input.index && resumed.report
      ? resumed
      : { unit: input.index, entry: 0, line: 0, report: emptyReport(), skipped: {} };
  const stop = deps.attempt.keepReporting(() => progress);
  const folder = await mkdtemp(join(tmpdir(), 'ap-sat-metadata-'));
  try {
    await recordSyncProgress(deps.orm, { ...input, fetchingStatus: 'running' });
    const path = join(folder, 'package.zip');
    const refusal = await packageRefusal(async () => {
      const downloaded = await deps.provider.downloadPackage(extractionId, packageId, path);
      await packageRead(deps, packageId, downloaded, async () => {
        let position = 0;
        for await (const entry of metadataPackageEntries({ path }, deps.intake)) {
          if (position++ < progress.entry) continue;
          if ('skipped' in entry) progress.skipped[entry.skipped] = (progress.skipped[entry.skipped] ?? 0) + 1;
          else {
            try {
              // Counted on a copy: what is heartbeated is the counts at the last batch applied whole, which a retry
              // resumes after (a batch cut short is applied again, and changes nothing it already changed).
              const working = structuredClone(progress.report);
              await applySatMetadata(deps, {
                companyId: input.companyId,
                items: entry.items(),
                readFrom: 'fiscal sync',
                afterLine: progress.line,
                report: working,
                onProgress: (line, report) => {
                  progress.line = line;
                  progress.report = structuredClone(report);
                },
              });
            } catch (error) {
              const refusal = metadataEntryRefusal(error);
              if (!refusal) throw error;
              progress.skipped[refusal.reason] = (progress.skipped[refusal.reason] ?? 0) + 1;
            }
          }
          progress.entry = position;
          progress.line = 0;
        }
      });
    });
    if (refusal) {
      // The lines applied before an unreadable directory broke off stand; the next sync asks for the window again.
      const counts = noCounts();
      await refusePackage(deps, input.companyId, input.packageId, refusal, counts);
      await recordMetadataProgress(deps.orm, input, {
        extractionId,
        packageId,
        counts: { refused: refusal.reason, detail: refusal.detail },
      });
      return counts;
    }
    const { report } = progress;
    await recordMetadataProgress(deps.orm, input, {
      extractionId,
      packageId,
      counts: {
        lines: report.lines,
        applied: report.applied,
        canceled: report.canceled,
        unknown: report.unknown,
        malformed: report.malformed,
        conflicting: report.conflicting,
        payments_canceled: report.paymentsCanceled.length,
        payments_not_canceled: report.paymentsNotCanceled.length,
        entries_skipped: Object.values(progress.skipped).reduce((sum, count) => sum + (count ?? 0), 0),
        skipped: progress.skipped,
        malformed_lines: report.malformedLines.slice(0, 20),
        conflicting_lines: report.conflictingLines.slice(0, 20),
        not_canceled: report.paymentsNotCanceled,
      },
    });
    return noCounts();
  } finally {
    stop();
    await rm(folder, { recursive: true, force: true });
  }
}
