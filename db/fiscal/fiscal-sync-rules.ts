// When a company may start a fiscal synchronisation, and what window it asks for. Pure: the repository applies it to
// the credential row it holds locked, with the database's clock.
import { colombianSyncWindow, mexicanSyncWindow } from '../../fiscal/sync-window.ts';
import type { FiscalCredential } from './fiscal-credential.entity.ts';

/** One synchronisation per company per hour, whatever the country. */
export const SYNC_RATE_LIMIT_MS = 60 * 60 * 1000;

export const SYNC_REFUSALS = {
  sat_credentials_not_configured: 422,
  sat_ciec_pending: 422,
  sat_ciec_invalid: 422,
  dian_automatic_sync_not_configured: 403,
  dian_credentials_not_configured: 422,
  dian_sync_window_empty: 422,
  fiscal_sync_not_supported_for_country: 422,
  fiscal_sync_rate_limited: 429,
} as const;
export type SyncRefusalCode = keyof typeof SYNC_REFUSALS;

export interface SyncRefusal {
  code: SyncRefusalCode;
  message: string;
  /** With `fiscal_sync_rate_limited`: whole seconds until the hour is up (rounded up). */
  retryAfterSeconds?: number;
}

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
export function planSync(country: string, credential: CredentialView | null, now: Date): SyncPlan | SyncRefusal {
  if (country === 'MEX') {
    if (!credential?.satCiecStatus || !credential.rfc)
      return {
        code: 'sat_credentials_not_configured',
        message: 'No CIEC is registered for the company RFC with the SAT extraction provider',
      };
    if (credential.satCiecStatus === 'pending')
      return { code: 'sat_ciec_pending', message: 'The CIEC of the company is still being validated' };
    if (credential.satCiecStatus === 'invalid')
      return {
        code: 'sat_ciec_invalid',
        message: 'The CIEC of the company is invalid or was rejected by the SAT; register it again',
      };
    const window = mexicanSyncWindow(now);
    return { country, syncFrom: window.from, syncTo: window.to };
  }
  if (country === 'COL') {
    if (!credential?.dianForwardingEnabled)
      return {
        code: 'dian_automatic_sync_not_configured',
        message: "Automatic DIAN sync is not configured: the forwarding of the tax authority's e-mail is not enabled",
      };
    if (!credential.dianNit || !credential.dianLegalRepresentative)
      return {
        code: 'dian_credentials_not_configured',
        message: 'DIAN credentials are missing: the company NIT and legal representative must be registered',
      };
    const window = colombianSyncWindow(now, credential.lastSyncAt ?? null);
    if (!window)
      return {
        code: 'dian_sync_window_empty',
        message: 'The last synchronisation was today: there is no new day to synchronise yet',
      };
    return { country, syncFrom: window.from, syncTo: window.to };
  }
  return {
    code: 'fiscal_sync_not_supported_for_country',
    message: `Fiscal synchronisation is not available for companies of ${country}`,
  };
}

/** The rate-limit refusal when the last accepted sync started less than an hour before `now`, else null. */
export function rateLimitRefusal(lastStartedAt: Date | null, now: Date): SyncRefusal | null {
  if (!lastStartedAt) return null;
  const remainingMs = lastStartedAt.getTime() + SYNC_RATE_LIMIT_MS - now.getTime();
  if (remainingMs <= 0) return null;
  const retryAfterSeconds = Math.ceil(remainingMs / 1000);
  return {
    code: 'fiscal_sync_rate_limited',
    message: `A fiscal synchronisation was already started in the last hour; retry in ${retryAfterSeconds} seconds`,
    retryAfterSeconds,
  };
}

export const isRefusal = (value: SyncPlan | SyncRefusal): value is SyncRefusal => 'code' in value;
