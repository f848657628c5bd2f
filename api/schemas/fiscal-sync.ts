import { z } from 'zod';
import { FETCHING_STATUSES } from '../../db/fiscal/fiscal-sync-run.entity.ts';

const DateTime = z.iso.datetime({ offset: true });
const DateOnly = z.iso.date();

export const MEXICAN_EXTRACTION_STATUSES = [
  'not_started',
  'pending',
  'waiting',
  'running',
  'finished',
  'failed',
] as const;
export const COLOMBIAN_SYNC_STATUSES = ['pending', 'finished', 'failed'] as const;

const MexicanAccepted = z.strictObject({
  country: z.literal('MEX'),
  status: z.literal('accepted'),
  started_at: DateTime.describe('When the sync started (the server clock); pass it to GET /fiscal-sync/status'),
  sync_from: DateTime.describe('Start of the last 24 hours, in Mexico City time (e.g. 2026-03-01T08:15:00-06:00)'),
  sync_to: DateTime.describe('End of the window: the start of the sync, to the second, in Mexico City time'),
  extraction_id: z.string().describe("The SAT extraction provider's id of the extraction"),
});

const ColombianAccepted = z.strictObject({
  country: z.literal('COL'),
  status: z.literal('accepted'),
  started_at: DateTime.describe('When the sync started (the server clock); pass it to GET /fiscal-sync/status'),
  sync_from: DateOnly.describe('First Bogotá day of the window: the day after the last sync, or 45 days back'),
  sync_to: DateOnly.describe('Last Bogotá day of the window: today'),
});

export const FiscalSyncAccepted = z
  .discriminatedUnion('country', [MexicanAccepted, ColombianAccepted])
  .meta({ id: 'FiscalSyncAccepted', description: 'The sync is under way; its outcome arrives asynchronously.' });

export const FiscalSyncStatusQuery = z.object({
  started_at: DateTime.optional()
    .transform((value) => (value === undefined ? undefined : new Date(value)))
    .describe(
      [
        'The `started_at` answered by POST /fiscal-sync.',
        'Colombia: completion is detected among syncs started at or after it (default: the last 2 hours).',
        'Mexico: ignored, the latest extraction is reported',
      ].join(' '),
    ),
});

const MexicanStatus = z.strictObject({
  country: z.literal('MEX'),
  status: z.enum(MEXICAN_EXTRACTION_STATUSES).describe('Of the latest extraction; `not_started` when there is none'),
  fetching_status: z
    .enum(FETCHING_STATUSES)
    .nullable()
    .describe(
      'Download of the packages once SAT finished; null before. `finished` once every package was taken or refused (`ops fiscal intake`), and when the sync failed during the download',
    ),
  from: DateTime.nullable(),
  to: DateTime.nullable(),
  extraction_id: z.string().nullable(),
  error_code: z
    .string()
    .nullable()
    .describe(
      [
        "Null unless failed: the provider's code (e.g. `invalid_credentials`) or `sat_request_error`, `sat_request_rejected`,",
        '`sat_requests_exhausted`, `sat_request_limit_exceeded`, `sat_request_duplicated`, `sat_request_expired`,',
        '`sat_request_timeout`, `package_unavailable`.',
        'A package too large or unreadable is refused for itself, not the sync',
      ].join(' '),
    ),
});

const ColombianStatus = z.strictObject({
  country: z.literal('COL'),
  status: z.enum(COLOMBIAN_SYNC_STATUSES),
  message: z.string(),
});

export const FiscalSyncStatus = z
  .discriminatedUnion('country', [MexicanStatus, ColombianStatus])
  .meta({ id: 'FiscalSyncStatus', description: 'Shape depends on the company country.' });
