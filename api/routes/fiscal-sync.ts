import { LockMode } from '@mikro-orm/core';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { Company } from '../../db/companies/company.entity.ts';
import {
  claimFiscalSync,
  fiscalSyncsSince,
  FiscalSyncRefused,
  latestFiscalSync,
  releaseFiscalSync,
} from '../../db/fiscal/fiscal-sync.repository.ts';
import { SYNC_REFUSALS } from '../../db/fiscal/fiscal-sync-rules.ts';
import type { EntityManager } from '../../db/orm.ts';
import { beginFiscalSync } from '../../temporal/fiscal-sync.ts';
import { DEFAULT_FISCAL_SYNC_TIMING } from '../../temporal/timings.ts';
import { ApiError, serviceUnavailable } from '../errors.ts';
import { presentAccepted, presentColombianStatus, presentMexicanStatus } from '../presenters/fiscal-sync.ts';
import { defineRoute, type Caller } from '../route.ts';
import { FiscalSyncAccepted, FiscalSyncStatus, FiscalSyncStatusQuery } from '../schemas/fiscal-sync.ts';

/** Colombia's status looks this far back when no started_at is given. */
const DEFAULT_STATUS_WINDOW_MS = 2 * 3_600_000;

const COMPANY_NOT_FOUND = {
  status: 422,
  code: 'company_not_found',
  description:
    "the API key's company was removed while the request was under way (afterwards its keys no longer authenticate: 401)",
};
const REFUSALS = [
  {
    status: 422,
    code: 'sat_credentials_not_configured',
    description: 'Mexico: no CIEC registered for the company RFC',
  },
  { status: 422, code: 'sat_ciec_pending', description: 'Mexico: the CIEC is still being validated' },
  {
    status: 422,
    code: 'sat_ciec_invalid',
    description: 'Mexico: the CIEC is invalid or was rejected (also when the SAT provider refuses it)',
  },
  {
    status: 403,
    code: 'dian_automatic_sync_not_configured',
    description: "Colombia: no forwarding of the tax authority's e-mail",
  },
  {
    status: 422,
    code: 'dian_credentials_not_configured',
    description: 'Colombia: NIT or legal representative missing, or refused by DIAN',
  },
  {
    status: 422,
    code: 'dian_sync_window_empty',
    description: 'Colombia: the last sync was today, there is no new day to synchronise',
  },
  { status: 422, code: 'fiscal_sync_not_supported_for_country', description: 'the company country has no fiscal sync' },
  {
    status: 429,
    code: 'fiscal_sync_rate_limited',
    description:
      'a sync was already started in the last hour (whatever its outcome); `retry_after_seconds` (and the Retry-After header) say when the next one is allowed',
  },
  {
    status: 502,
    code: 'sat_provider_error',
    description:
      'Mexico: the SAT extraction provider refused to create the extraction for another reason than the CIEC',
  },
];

/**
 * The caller's company, read again under a share lock: the key was checked a moment ago, but the company may have been
 * removed since (or be being removed: the lock waits for that to commit or roll back).
 */
async function companyOr422(em: EntityManager, caller: Caller): Promise<Company> {
  const company = await em.transactional((tx) =>
    tx.findOne(Company, { id: caller.company.id }, { lockMode: LockMode.PESSIMISTIC_READ }),
  );
  if (!company)
    throw new ApiError(COMPANY_NOT_FOUND.status, COMPANY_NOT_FOUND.code, 'The company of this API key does not exist');
  return company;
}

function refusal(error: FiscalSyncRefused): ApiError {
  const retry = error.retryAfterSeconds;
  return new ApiError(
    SYNC_REFUSALS[error.code],
    error.code,
    error.message,
    retry === null ? {} : { extras: { retry_after_seconds: retry }, headers: { 'retry-after': String(retry) } },
  );
}

/** The outside system's answer to the sync's first step, as the spec's errors. */
function beginRefusal(error: unknown): ApiError | null {
  const cause = error instanceof WorkflowUpdateFailedError ? error.cause : null;
  if (!(cause instanceof ApplicationFailure)) return null;
  const code = (cause.details?.[0] as { code?: string } | undefined)?.code;
  if (cause.type === 'SatProviderRefused') {
    if (code === 'invalid_credentials' || code === 'sat_credentials_not_configured')
      return new ApiError(
        422,
        'sat_ciec_invalid',
        `The SAT extraction provider refused the CIEC of the company: ${cause.message}`,
      );
    if (code === 'provider_not_configured') return serviceUnavailable('SAT extraction provider');
    return new ApiError(502, 'sat_provider_error', cause.message);
  }
  if (cause.type === 'DianCredentialsRefused') {
    if (code === 'dian_not_configured') return serviceUnavailable('DIAN');
    return new ApiError(
      422,
      'dian_credentials_not_configured',
      `DIAN refused the registered credentials: ${cause.message}`,
    );
  }
  if (cause.type === 'SatProviderUnavailable') return serviceUnavailable('SAT extraction provider');
  if (cause.type === 'DianUnavailable') return serviceUnavailable('DIAN');
  return null;
}

/** Fiscal synchronisation: start one on demand (SAT extraction in Mexico, DIAN e-mail pipeline in Colombia) and follow it. */
export const fiscalSyncRoutes = [
  defineRoute({
    method: 'post',
    path: '/fiscal-sync',
    operationId: 'startFiscalSync',
    summary: 'Start a fiscal synchronisation with the tax authority of the company country',
    description:
      'No body: the country comes from the company and the window is computed by the server. Mexico: an extraction of the received CFDI of the last 24 hours (Mexico City time) is created with the SAT extraction provider; its id is answered. Colombia: a DIAN access token is requested and the window (the day after the last sync to today, or 45 days back) is prepared for the e-mail pipeline. Documents then arrive asynchronously; new ones emit `document.created`. One sync per company per hour: a request refused by a precondition does not count, an accepted one counts whatever its outcome.',
    tags: ['Fiscal synchronisation'],
    auth: 'api-key',
    status: 202,
    response: FiscalSyncAccepted,
    responseDescription: 'Accepted: the sync is under way',
    errors: [...REFUSALS, COMPANY_NOT_FOUND],
    handler: async ({ em, caller, deps }) => {
      const company = await companyOr422(em, caller);
      const run = await claimFiscalSync(em, company).catch((error: unknown) => {
        throw error instanceof FiscalSyncRefused ? refusal(error) : error;
      });
      try {
        const begun = await beginFiscalSync(deps.temporal, {
          companyId: company.id,
          runId: run.id,
          country: run.country,
          startedAt: run.startedAt.toISOString(),
          timing: deps.config.fiscalSync ?? DEFAULT_FISCAL_SYNC_TIMING,
        });
        return presentAccepted(run, begun.extractionId);
      } catch (error) {
        // The sync never started at the outside system: it does not count against the hour.
        await releaseFiscalSync(em.fork(), run.id);
        throw beginRefusal(error) ?? error;
      }
    },
  }),
  defineRoute({
    method: 'get',
    path: '/fiscal-sync/status',
    operationId: 'getFiscalSyncStatus',
    summary: 'Where the fiscal synchronisation stands',
    description:
      'Mexico: the latest extraction (`not_started` when there is none), its fetching status, window, id and error code. Colombia: `pending` while a sync started at or after `started_at` (default: the last 2 hours) is running, else how the latest of them ended; with none, `finished`. Poll every 30 to 60 seconds until `finished` or `failed`.',
    tags: ['Fiscal synchronisation'],
    auth: 'api-key',
    query: FiscalSyncStatusQuery,
    response: FiscalSyncStatus,
    errors: [COMPANY_NOT_FOUND],
    handler: async ({ em, caller, query }) => {
      const company = await companyOr422(em, caller);
      if (company.country === 'MEX') return presentMexicanStatus(await latestFiscalSync(em));
      const since = query.started_at ?? new Date(Date.now() - DEFAULT_STATUS_WINDOW_MS);
      return presentColombianStatus(await fiscalSyncsSince(em, since), since);
    },
  }),
];
