import type { MetricMeter } from '@temporalio/common';
import type { RecordedOutcome } from '../services/fiscal-sync/runs.ts';

/**
 * Buckets of `fiscal_sync_duration`, for the worker's telemetry: the SDK's defaults stop at 10 s, while a Colombian sync
 * takes seconds and a Mexican one minutes to days (SAT answers within 72 hours).
 */
export const FISCAL_SYNC_DURATION_BUCKETS = [
  1,
  5,
  15,
  30,
  60,
  120,
  300,
  600,
  1_800,
  3_600,
  4 * 3_600,
  12 * 3_600,
  24 * 3_600,
  72 * 3_600,
  96 * 3_600,
];

/** The label of a finished sync's error code, so that every series of the counter has the same labels. */
const NO_ERROR = 'none';

/**
 * Counts a sync's end in the worker's Prometheus metrics (the SDK's activity meter, served on WORKER_METRICS_ADDRESS):
 * outcomes by country, outcome and error code, the documents they imported, and how long they took.
 */
export function countSyncOutcome(meter: MetricMeter, outcome: RecordedOutcome): void {
  const { country } = outcome;
  meter
    .createCounter(
      'fiscal_sync_outcomes',
      'syncs',
      'Fiscal synchronisations ended, by country, outcome (finished, failed) and error code',
    )
    .add(1, { country, outcome: outcome.status, error_code: outcome.errorCode ?? NO_ERROR });
  meter
    .createCounter(
      'fiscal_sync_documents_imported',
      'documents',
      'New documents imported by fiscal synchronisations, by country',
    )
    .add(outcome.documentsImported, { country });
  meter
    .createHistogram(
      'fiscal_sync_duration',
      'float',
      's',
      'Fiscal synchronisation duration, from the request to its outcome',
    )
    .record(outcome.seconds, { country, outcome: outcome.status });
}
