// When a company may start a fiscal synchronisation, and what window it asks for. Pure: the repository applies it to
// the credential row it holds locked, with the database's clock.
import { colombianSyncWindow, mexicanSyncWindow } from '../../fiscal/sync-window.ts';
import { Refusal } from '../../platform/refusal.ts';
import type { FiscalCredential } from './fiscal-credential.entity.ts';

/** One synchronisation per company per hour, whatever the country. */
export const SYNC_RATE_LIMIT_MS = 60 * 60 * 1000;

export type SyncRefusalCode =
  | 'sat_credentials_not_configured'
  | 'sat_ciec_pending'
  | 'sat_ciec_invalid'
  | 'dian_automatic_sync_not_configured'
  | 'dian_credentials_not_configured'
  | 'dian_sync_window_empty'
  | 'fiscal_sync_not_supported_for_country'
  | 'fiscal_sync_rate_limited';

/**
 * A POST /fiscal-sync the company may not make now: a precondition, or the hourly limit (whose `retry_after_seconds`
 * detail is the whole seconds until the hour is up, rounded up).
 */
export class FiscalSyncRefused extends Refusal<SyncRefusalCode> {}

export type CredentialView = Pick<
  FiscalCredential,
  'satCiecStatus' | 'rfc' | 'dianForwardingEnabled' | 'dianNit' | 'dianLegalRepresentative' | 'lastSyncAt'
>;

export interface SyncPlan {
  country: 'MEX' | 'COL';
  syncFrom: string;
  syncTo: string;
}

/** The window to ask for, or why the company cannot synchronise now (preconditions only; the rate limit is separate). */
export function planSync(country: string, credential: CredentialView | null, now: Date): SyncPlan | FiscalSyncRefused {
  if (country === 'MEX') {
    if (!credential?.satCiecStatus || !credential.rfc)
      return new FiscalSyncRefused(
        'sat_credentials_not_configured',
        'No CIEC is registered for the company RFC with the SAT extraction provider',
      );
    if (credential.satCiecStatus === 'pending')
      return new FiscalSyncRefused('sat_ciec_pending', 'The CIEC of the company is still being validated');
    if (credential.satCiecStatus === 'invalid')
      return new FiscalSyncRefused(
        'sat_ciec_invalid',
        'The CIEC of the company is invalid or was rejected by the SAT; register it again',
      );
    const window = mexicanSyncWindow(now);
    return { country, syncFrom: window.from, syncTo: window.to };
  }
  if (country === 'COL') {
    if (!credential?.dianForwardingEnabled)
      return new FiscalSyncRefused(
        'dian_automatic_sync_not_configured',
        "Automatic DIAN sync is not configured: the forwarding of the tax authority's e-mail is not enabled",
      );
    if (!credential.dianNit || !credential.dianLegalRepresentative)
      return new FiscalSyncRefused(
        'dian_credentials_not_configured',
        'DIAN credentials are missing: the company NIT and legal representative must be registered',
      );
    const window = colombianSyncWindow(now, credential.lastSyncAt ?? null);
    if (!window)
      return new FiscalSyncRefused(
        'dian_sync_window_empty',
        'The last synchronisation was today: there is no new day to synchronise yet',
      );
    return { country, syncFrom: window.from, syncTo: window.to };
  }
  return new FiscalSyncRefused(
    'fiscal_sync_not_supported_for_country',
    `Fiscal synchronisation is not available for companies of ${country}`,
  );
}

/** The rate-limit refusal when the last accepted sync started less than an hour before `now`, else null. */
export function rateLimitRefusal(lastStartedAt: Date | null, now: Date): FiscalSyncRefused | null {
  if (!lastStartedAt) return null;
  const remainingMs = lastStartedAt.getTime() + SYNC_RATE_LIMIT_MS - now.getTime();
  if (remainingMs <= 0) return null;
  const retryAfterSeconds = Math.ceil(remainingMs / 1000);
  return new FiscalSyncRefused(
    'fiscal_sync_rate_limited',
    `A fiscal synchronisation was already started in the last hour; retry in ${retryAfterSeconds} seconds`,
    { details: { retry_after_seconds: retryAfterSeconds } },
  );
}
