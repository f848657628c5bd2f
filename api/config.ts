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
  };
}
