import { receptionEventTimingFromEnv, type ReceptionEventTiming } from '../worker/reception-event-timing.ts';
import { fiscalSyncTimingFromEnv, type FiscalSyncTiming } from '../worker/fiscal-sync-timing.ts';

/** Settings of the HTTP API process, read and checked once at boot. */
export interface ApiConfig {
  host: string;
  port: number;
  /** `development` relaxes what only makes sense locally (http webhooks to loopback, response checks). */
  environment: 'development' | 'production';
  /** Public URL of the API, as integrators reach it; used in links the API returns. */
  publicUrl: string;
  jsonBodyLimit: string;
  /** ERP catalog batches (up to 1,000 records, purchase orders with their lines) are larger. */
  erpJsonBodyLimit: string;
  /** Checks every response against its schema: on outside production, so the docs cannot drift. */
  validateResponses: boolean;
  /** Upper bound for one request, so none hangs. */
  requestTimeoutMs: number;
  /** Port of the separate Prometheus endpoint; null: none. */
  metricsPort: number | null;
  /** Also serve /metrics on the API port (off: the public port does not expose metrics). */
  metricsOnApiPort: boolean;
  /** Pacing of reception-event workflows (waits for earlier events, DIAN retries); tests shorten it. */
  receptionEvents?: ReceptionEventTiming;
  /** How often a payment's workflow asks the gateway about its transfer. */
  paymentPollIntervalMs: number;
  /** How often a bank-account validation asks the validation service for its outcome. */
  bankValidationPollIntervalMs: number;
  /** Pacing of fiscal-sync workflows (SAT extraction polling); tests shorten it. */
  fiscalSync?: FiscalSyncTiming;
}

export function apiConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const environment = env.NODE_ENV === 'production' ? 'production' : 'development';
  const port = Number(env.PORT ?? 3000);
  const host = env.HOST ?? '127.0.0.1';
  return {
    host,
    port,
    environment,
    publicUrl: env.PUBLIC_URL ?? `http://${host}:${port}`,
    jsonBodyLimit: env.JSON_BODY_LIMIT ?? '1mb',
    erpJsonBodyLimit: env.ERP_JSON_BODY_LIMIT ?? '10mb',
    validateResponses: env.VALIDATE_RESPONSES ? env.VALIDATE_RESPONSES === 'true' : environment !== 'production',
    requestTimeoutMs: Number(env.REQUEST_TIMEOUT_MS ?? 30_000),
    metricsPort: env.METRICS_PORT ? Number(env.METRICS_PORT) : null,
    metricsOnApiPort: env.METRICS_ON_API_PORT === 'true',
    receptionEvents: receptionEventTimingFromEnv(env),
    paymentPollIntervalMs: Number(env.PAYMENT_POLL_INTERVAL_MS ?? 30_000),
    bankValidationPollIntervalMs: Number(env.BANK_VALIDATION_POLL_INTERVAL_MS ?? 30_000),
    fiscalSync: fiscalSyncTimingFromEnv(env),
  };
}
