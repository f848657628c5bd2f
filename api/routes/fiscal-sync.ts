import { LockMode } from '@mikro-orm/core';
import { Company } from '../../db/companies/company.entity.ts';
import {
  claimFiscalSync,
  fiscalSyncsSince,
  latestFiscalSync,
  releaseFiscalSync,
} from '../../db/fiscal/fiscal-sync.repository.ts';
import type { EntityManager } from '../../db/orm.ts';
import { Refusal } from '../../platform/refusal.ts';
import { beginFiscalSync } from '../../temporal/fiscal-sync.ts';
import { refusalOf } from '../../temporal/refusals.ts';
import { DEFAULT_FISCAL_SYNC_TIMING } from '../../temporal/timings.ts';
import { serviceUnavailable } from '../errors.ts';
import { refusals } from '../refusals.ts';
import { presentAccepted, presentColombianStatus, presentMexicanStatus } from '../presenters/fiscal-sync.ts';
import { defineRoute, type Caller } from '../route.ts';
import { FiscalSyncAccepted, FiscalSyncStatus, FiscalSyncStatusQuery } from '../schemas/fiscal-sync.ts';

/** Colombia's status looks this far back when no started_at is given. */
const DEFAULT_STATUS_WINDOW_MS = 2 * 3_600_000;

/**
 * The caller's company, read again under a share lock: the key was checked a moment ago, but the company may have been
 * removed since (or be being removed: the lock waits for that to commit or roll back).
 */
async function companyOr422(em: EntityManager, caller: Caller): Promise<Company> {
  const company = await em.transactional((tx) =>
    tx.findOne(Company, { id: caller.company.id }, { lockMode: LockMode.PESSIMISTIC_READ }),
  );
  if (!company) throw new Refusal('company_not_found', 'The company of this API key does not exist');
  return company;
}

/** The outside system's answer to the sync's first step, as the spec's errors. */
function beginRefusal(error: unknown): Error | null {
  const cause = refusalOf(error);
  if (!cause) return null;
  const code = cause.details.code;
  if (cause.code === 'SatProviderRefused') {
    if (code === 'invalid_credentials' || code === 'sat_credentials_not_configured')
      return new Refusal(
        'sat_ciec_invalid',
        `The SAT extraction provider refused the CIEC of the company: ${cause.message}`,
      );
    if (code === 'provider_not_configured') return serviceUnavailable('SAT extraction provider');
    return new Refusal('sat_provider_error', cause.message);
  }
  if (cause.code === 'DianCredentialsRefused') {
    if (code === 'dian_not_configured') return serviceUnavailable('DIAN');
    return new Refusal('dian_credentials_not_configured', `DIAN refused the registered credentials: ${cause.message}`);
  }
  if (cause.code === 'SatProviderUnavailable') return serviceUnavailable('SAT extraction provider');
  if (cause.code === 'DianUnavailable') return serviceUnavailable('DIAN');
  return null;
}

/** Fiscal synchronisation: start one on demand (SAT extraction in Mexico, DIAN e-mail pipeline in Colombia) and follow it. */
export const fiscalSyncRoutes = [
  defineRoute({
    method: 'post',
    path: '/fiscal-sync',
    operationId: 'startFiscalSync',
    summary: 'Start a fiscal synchronisation with the tax authority of the company country',
    description: [
      'No body: the country comes from the company and the window is computed by the server.',
      'Mexico: an extraction of the received CFDI of the last 24 hours (Mexico City time) is created with the SAT extraction provider; its id is answered.',
      'Colombia: a DIAN access token is requested and the window (the day after the last sync to today, or 45 days back) is prepared for the e-mail pipeline.',
      'Documents then arrive asynchronously; new ones emit `document.created`.',
      'One sync per company per hour: a request refused by a precondition does not count, an accepted one counts whatever its outcome.',
    ].join(' '),
    tags: ['Fiscal synchronisation'],
    auth: 'api-key',
    status: 202,
    response: FiscalSyncAccepted,
    responseDescription: 'Accepted: the sync is under way',
    errors: refusals([
      'sat_credentials_not_configured',
      'sat_ciec_pending',
      'sat_ciec_invalid',
      'dian_automatic_sync_not_configured',
      'dian_credentials_not_configured',
      'dian_sync_window_empty',
      'fiscal_sync_not_supported_for_country',
      'fiscal_sync_rate_limited',
      'sat_provider_error',
      'company_not_found',
    ]),
    handler: async ({ em, caller, deps }) => {
      const company = await companyOr422(em, caller);
      const run = await claimFiscalSync(em, company);
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
    description: [
      'Mexico: the latest extraction (`not_started` when there is none), its fetching status, window, id and error code.',
      'Colombia: `pending` while a sync started at or after `started_at` (default: the last 2 hours) is running, else how the latest of them ended;',
      'with none, `finished`.',
      'Poll every 30 to 60 seconds until `finished` or `failed`.',
    ].join(' '),
    tags: ['Fiscal synchronisation'],
    auth: 'api-key',
    query: FiscalSyncStatusQuery,
    response: FiscalSyncStatus,
    errors: refusals(['company_not_found']),
    handler: async ({ em, caller, query }) => {
      const company = await companyOr422(em, caller);
      if (company.country === 'MEX') return presentMexicanStatus(await latestFiscalSync(em));
      const since = query.started_at ?? new Date(Date.now() - DEFAULT_STATUS_WINDOW_MS);
      return presentColombianStatus(await fiscalSyncsSince(em, since), since);
    },
  }),
];
