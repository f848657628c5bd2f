import {
  fiscalSyncTimingFromEnv,
  pollIntervalsFromEnv,
  receptionEventTimingFromEnv,
  type FiscalSyncTiming,
  type ReceptionEventTiming,
} from '../temporal/timings.ts';
import { retryScheduleFromEnv, type RetrySchedule } from '../temporal/webhooks.ts';
import { deploymentFromEnv } from '../platform/deployment.ts';
import { outboundPolicyFromEnv, type OutboundPolicy } from '../platform/outbound-policy.ts';
import type { RateLimit } from './middleware/rate-limit.ts';

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
  /** Requests per API key; null: unlimited (the development default). */
  rateLimit: RateLimit | null;
  /** Which links (notes' files) are accepted: public addresses, and the networks the operator allows. */
  outbound: OutboundPolicy;
  /** Pacing of reception-event workflows (waits for earlier events, DIAN retries); tests shorten it. */
  receptionEvents?: ReceptionEventTiming;
  /** How often a payment's workflow asks the gateway about its transfer. */
  paymentPollIntervalMs: number;
  /** How often a bank-account validation asks the validation service for its outcome. */
  bankValidationPollIntervalMs: number;
  /** Pacing of fiscal-sync workflows (SAT extraction polling); tests shorten it. */
  fiscalSync?: FiscalSyncTiming;
  /** The webhook retry schedule, for the deliveries a request starts (an accounting retry), as the worker has it. */
  webhookRetry: RetrySchedule;
}

export function apiConfigFromEnv(env: NodeJS.ProcessEnv = process.env): ApiConfig {
  const { environment, publicUrl } = deploymentFromEnv(env);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: Number(env.PORT ?? 3000),
    environment,
    publicUrl,
    jsonBodyLimit: env.JSON_BODY_LIMIT ?? '1mb',
    erpJsonBodyLimit: env.ERP_JSON_BODY_LIMIT ?? '10mb',
    validateResponses: env.VALIDATE_RESPONSES ? env.VALIDATE_RESPONSES === 'true' : environment !== 'production',
    requestTimeoutMs: Number(env.REQUEST_TIMEOUT_MS ?? 30_000),
    metricsPort: env.METRICS_PORT ? Number(env.METRICS_PORT) : null,
    metricsOnApiPort: env.METRICS_ON_API_PORT === 'true',
    rateLimit: rateLimitFromEnv(env, environment),
    outbound: outboundPolicyFromEnv(env),
    receptionEvents: receptionEventTimingFromEnv(env),
    paymentPollIntervalMs: pollIntervalsFromEnv(env).paymentMs,
    bankValidationPollIntervalMs: pollIntervalsFromEnv(env).bankValidationMs,
    fiscalSync: fiscalSyncTimingFromEnv(env),
    webhookRetry: retryScheduleFromEnv(env),
  };
}

/** On in production (1,200 requests a minute per key, bursts of 120), off in development; `0` turns it off. */
function rateLimitFromEnv(env: NodeJS.ProcessEnv, environment: ApiConfig['environment']): RateLimit | null {
  const perMinute = Number(env.RATE_LIMIT_PER_MINUTE ?? (environment === 'production' ? 1_200 : 0));
  if (!Number.isFinite(perMinute) || perMinute < 0)
    throw new Error('RATE_LIMIT_PER_MINUTE must be a number of requests (0: unlimited)');
  if (perMinute === 0) return null;
  const burst = Number(env.RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(perMinute / 10)));
  if (!Number.isInteger(burst) || burst < 1)
    throw new Error('RATE_LIMIT_BURST must be a whole number of requests, at least 1');
  return { perMinute, burst };
}
