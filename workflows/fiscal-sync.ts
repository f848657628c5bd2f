import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  continueAsNew,
  defineUpdate,
  proxyActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ImportCounts } from '../services/fiscal-sync/runs.ts';

/** How a sync paces itself; from the API's configuration, so tests shorten it without mocking time. */
export interface FiscalSyncTiming {
  /** First wait between two verifications of a SAT extraction (30 s by default)... */
  pollInitialMs: number;
  /** ...growing by half each time up to this (60 s by default). */
  pollMaxMs: number;
  /** SAT rarely takes more than 72 hours: past this, the sync fails with `sat_request_timeout`. */
  giveUpAfterMs: number;
}

export interface FiscalSyncInput {
  companyId: string;
  runId: string;
  country: 'MEX' | 'COL';
  /** The run's started_at (ISO 8601): the workflow id's key and the origin of the give-up deadline. */
  startedAt: string;
  timing: FiscalSyncTiming;
  /** Set on a run continued as new: the extraction exists and has been verified this many times. */
  extractionId?: string;
  polls?: number;
}

/** What the API answers once the sync is under way: Mexico's extraction id (null in Colombia). */
export interface FiscalSyncBegun {
  extractionId: string | null;
}

/**
 * An update, not a signal: POST /fiscal-sync answers with the extraction id (Mexico) or after DIAN's token was
 * requested (Colombia), and with the outside system's refusal when there is one. Sent with the start (update-with-start).
 */
export const beginFiscalSyncUpdate = defineUpdate<FiscalSyncBegun, []>('beginFiscalSync');

// The first step runs while the API waits: a few quick attempts, then the API answers 503.
const { createSatExtraction, requestDianAccess } = proxyActivities<Activities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '500 milliseconds',
    maximumInterval: '2 seconds',
    maximumAttempts: 3,
    nonRetryableErrorTypes: ['SatProviderRefused', 'DianCredentialsRefused', 'FiscalSyncRunMissing'],
  },
});
// Verifying and recording are retried until the provider and the database answer: an outage delays a sync, never
// loses it. They heartbeat while they run, so that one caught by a dying worker is retried within seconds.
const { checkSatExtraction, recordSyncProgress, recordSyncOutcome } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    nonRetryableErrorTypes: ['SatProviderRefused', 'SatExtractionNotFound', 'FiscalSyncRunMissing'],
  },
});
// Imports heartbeat their progress: a worker that dies mid-package is noticed within seconds and the package resumes elsewhere.
const { importSatPackage, importMailboxWindow } = proxyActivities<Activities>({
  startToCloseTimeout: '2 hours',
  heartbeatTimeout: '10 seconds',
  retry: {
    initialInterval: '1 second',
    maximumInterval: '1 minute',
    maximumAttempts: 10,
    nonRetryableErrorTypes: [
      'SatProviderRefused',
      'SatExtractionNotFound',
      'MailboxNotConfigured',
      'FiscalSyncRunMissing',
    ],
  },
});

const skippedIn = (counts: ImportCounts) =>
  Object.values(counts.skipped).reduce((total: number, count) => total + (count ?? 0), 0);

const sum = (counts: ImportCounts) =>
  `${counts.created} new document(s), ${counts.existing} already present, ` +
  `${counts.complements} payment complement(s), ${skippedIn(counts)} entr(ies) skipped`;

/** The error code an activity failure carries (`details[0].code`), else its type. */
function failureCode(error: unknown, fallback: string): string {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  if (cause instanceof ApplicationFailure)
    return (cause.details?.[0] as { code?: string } | undefined)?.code ?? cause.type ?? fallback;
  return fallback;
}

/**
 * One POST /fiscal-sync, as workflow `fiscal-sync/<companyRef>/<startedAt>`. Mexico: create the SAT extraction of the
 * last 24 hours, verify it as a durable loop (every 30-60 s) until SAT finishes, then download every package and
 * import its CFDI. Colombia: request DIAN's access token, then import the AttachedDocument e-mails of the window. The
 * run's row records status, fetching status and error code; new documents emit `document.created` through the import.
 */
export async function fiscalSync(input: FiscalSyncInput): Promise<'finished' | 'failed' | 'not_started'> {
  const subject = { companyId: input.companyId, runId: input.runId };
  let begun: FiscalSyncBegun | null = input.extractionId ? { extractionId: input.extractionId } : null;
  let refused = false;
  let beginning: Promise<FiscalSyncBegun> | undefined;

  setHandler(beginFiscalSyncUpdate, async () => {
    beginning ??= (async () => {
      try {
        if (input.country === 'MEX') begun = { extractionId: (await createSatExtraction(subject)).extractionId };
        else {
          await requestDianAccess(subject);
          begun = { extractionId: null };
        }
        return begun;
      } catch (error) {
        refused = true;
        // The outside system's refusal reaches the API as itself, so it can answer with the right code.
        if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure) throw error.cause;
        throw error;
      }
    })();
    return beginning;
  });

  // Started by update-with-start, the update is always there; a bare start (by hand) gives up.
  if (!(await condition(() => begun !== null || refused, '10 minutes')) || !begun) return 'not_started';
  // What the Mexican packages imported so far, for a run that fails at a later one (Colombia's import writes its own).
  const imported: { counts?: ImportCounts } = {};
  try {
    return input.country === 'MEX'
      ? await mexicanSync(input, begun.extractionId!, imported)
      : await colombianSync(input);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    // The API withdrew the run (its wait for the first step ran out): there is nothing left to record.
    if (error.cause instanceof ApplicationFailure && error.cause.type === 'FiscalSyncRunMissing') return 'not_started';
    await recordSyncOutcome({
      ...subject,
      status: 'failed',
      errorCode: failureCode(error, 'sync_failed'),
      message: error.cause?.message ?? error.message,
      ...imported,
    });
    return 'failed';
  }
}

async function mexicanSync(
  input: FiscalSyncInput,
  extractionId: string,
  imported: { counts?: ImportCounts },
): Promise<'finished' | 'failed'> {
  const subject = { companyId: input.companyId, runId: input.runId, extractionId };
  const giveUpAt = Date.parse(input.startedAt) + input.timing.giveUpAfterMs;
  let polls = input.polls ?? 0;
  for (;;) {
    if (workflowInfo().continueAsNewSuggested)
      await continueAsNew<typeof fiscalSync>({ ...input, extractionId, polls });
    if (Date.now() >= giveUpAt) {
      await recordSyncOutcome({
        ...subject,
        status: 'failed',
        errorCode: 'sat_request_timeout',
        message: `SAT did not finish the request within ${Math.round(input.timing.giveUpAfterMs / 3_600_000)} hours`,
      });
      return 'failed';
    }
    await sleep(Math.min(input.timing.pollMaxMs, Math.round(input.timing.pollInitialMs * 1.5 ** polls)));
    polls += 1;
    const step = await checkSatExtraction(subject);
    if (step.kind === 'poll') continue;
    if (step.kind === 'failed') {
      await recordSyncOutcome({ ...subject, status: 'failed', errorCode: step.errorCode, message: step.message });
      return 'failed';
    }
    if (step.kind === 'empty') {
      await recordSyncOutcome({
        ...subject,
        status: 'finished',
        fetchingStatus: 'finished',
        message: 'SAT found no CFDI received in the window',
        counts: { created: 0, existing: 0, complements: 0, skipped: {} },
      });
      return 'finished';
    }
    let total: ImportCounts = { created: 0, existing: 0, complements: 0, skipped: {} };
    for (const [index, packageId] of step.packageIds.entries()) {
      total = add(total, await importSatPackage({ ...subject, packageId, index }));
      imported.counts = total;
    }
    await recordSyncOutcome({
      ...subject,
      status: 'finished',
      fetchingStatus: 'finished',
      message: `Downloaded ${step.packageIds.length} package(s): ${sum(total)}`,
      counts: total,
    });
    return 'finished';
  }
}

async function colombianSync(input: FiscalSyncInput): Promise<'finished'> {
  const subject = { companyId: input.companyId, runId: input.runId };
  await recordSyncProgress({ ...subject, status: 'running' });
  const found = await importMailboxWindow(subject);
  await recordSyncOutcome({
    ...subject,
    status: 'finished',
    message: `Read ${found.messages} e-mail(s): ${sum(found)}`,
    counts: found,
    advanceLastSync: true,
  });
  return 'finished';
}

function add(total: ImportCounts, more: ImportCounts): ImportCounts {
  const skipped = { ...total.skipped };
  for (const [reason, count] of Object.entries(more.skipped) as [keyof ImportCounts['skipped'], number][])
    skipped[reason] = (skipped[reason] ?? 0) + count;
  return {
    created: total.created + more.created,
    existing: total.existing + more.existing,
    complements: total.complements + more.complements,
    skipped,
  };
}
