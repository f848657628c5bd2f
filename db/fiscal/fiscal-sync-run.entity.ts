import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { COUNTRIES, Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/** Mexico: the extraction's status; Colombia uses pending, finished and failed. */
export const SYNC_STATUSES = ['pending', 'waiting', 'running', 'finished', 'failed'] as const;
export type SyncStatus = (typeof SYNC_STATUSES)[number];

export const FETCHING_STATUSES = ['pending', 'running', 'finished'] as const;
export type FetchingStatus = (typeof FETCHING_STATUSES)[number];

/** One POST /fiscal-sync: the window asked of the tax authority and how far the import got. */
export const FiscalSyncRun = defineEntity({
  name: 'FiscalSyncRun',
  tableName: 'fiscal_sync_runs',
  // Also the workflow id fiscal-sync/<companyRef>/<startedAt>, and the rate limit's lookup.
  uniques: [{ properties: ['company', 'startedAt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    country: p.enum(COUNTRIES).nativeEnumName('country'),
    startedAt: p.datetime(),
    /** As answered: ISO 8601 timestamps in Mexico, YYYY-MM-DD dates in Colombia. */
    syncFrom: p.string(),
    syncTo: p.string(),
    status: p.enum(SYNC_STATUSES).nativeEnumName('sync_status').default('pending'),
    fetchingStatus: p.enum(FETCHING_STATUSES).nativeEnumName('fetching_status').nullable(),
    extractionId: p.string().nullable(),
    /** Mexico: the extraction of SAT's metadata of the company's received CFDI (their status: cancelled or current). */
    metadataExtractionId: p.string().nullable(),
    errorCode: p.string().nullable(),
    message: p.text().nullable(),
    documentsImported: p.integer().default(0),
    /** Package or mail entries passed over (junk, not a fiscal document, refused); `details.skipped` has them by reason. */
    entriesSkipped: p.integer().default(0),
    /** What the import found: documents created and already present, payment complements, skips by reason. */
    details: p.json<Record<string, unknown>>().nullable(),
    finishedAt: p.datetime().nullable(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type FiscalSyncRun = InferEntity<typeof FiscalSyncRun>;
