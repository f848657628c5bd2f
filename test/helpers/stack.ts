import { createClient, type Client as ApiClient } from '@accounts-payable/client';
import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { localFileStorage } from '../../platform/storage/file-storage.ts';
import { createApp } from '../../api/app.ts';
import { apiConfigFromEnv, type ApiConfig } from '../../api/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { listen } from '../../api/server.ts';
import type { HttpMetrics } from '../../api/metrics.ts';
import { initORM, type Orm } from '../../db/orm.ts';

export interface TestApi {
  url: string;
  orm: Orm;
  /** The Temporal client the API starts and updates workflows with. */
  client: Client;
  /** The typed client (`@accounts-payable/client`) against this API, authenticated with the key: for every well-formed request. */
  sdk(apiKey?: string): ApiClient;
  /** `fetch` against the API, JSON in and out: for requests the typed client cannot make (malformed bodies, wrong headers). */
  call(
    method: string,
    path: string,
    options?: {
      apiKey?: string;
      headers?: Record<string, string>;
      body?: unknown;
      rawBody?: string | Uint8Array | FormData;
    },
  ): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  close(): Promise<void>;
}

export interface TestApiOptions {
  config?: Partial<ApiConfig>;
  /** Another ORM (a broken one, a counting one, another database); the caller closes it. */
  orm?: Orm;
  logger?: Logger;
  /** Start workflows on this task queue (a test file with its own worker) instead of the suite's. */
  taskQueue?: string;
  metrics?: HttpMetrics;
}

/** The real Koa app over HTTP on a free port, against the suite's PostgreSQL and Temporal. */
export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const ownOrm = options.orm
    ? undefined
    : await initORM({ url: inject('databaseUrl'), poolMax: 5, statementTimeoutMs: 30_000, debug: false });
  const orm = options.orm ?? ownOrm!;
  const connection = await Connection.connect({ address: inject('temporalAddress') });
  const client = new Client({ connection, namespace: 'default' });
  const config: ApiConfig = { ...apiConfigFromEnv({}), port: 0, ...options.config };
  const logger = options.logger ?? createLogger('test-api', process.env.LOG_LEVEL ?? 'silent');
  const app = createApp({
    orm,
    temporal: { client, taskQueue: options.taskQueue ?? inject('taskQueue') },
    config,
    logger,
    storage: localFileStorage(inject('storageDir')),
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const running = await listen(app, config);
  config.publicUrl = running.url;
  return {
    url: running.url,
    orm,
    client,
    sdk: (apiKey) => createClient({ baseUrl: running.url, apiKey }),
    async call(method, path, callOptions = {}) {
      const headers: Record<string, string> = {
        ...(callOptions.apiKey ? { 'api-key': callOptions.apiKey } : {}),
        ...callOptions.headers,
      };
      let body: string | Uint8Array | FormData | undefined = callOptions.rawBody;
      if (callOptions.body !== undefined) {
        body = JSON.stringify(callOptions.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${running.url}${path}`, { method, headers, body: body as RequestInit['body'] });
      const text = await response.text();
      let parsed: unknown = undefined;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        parsed = undefined;
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      await running.stop();
      await connection.close();
      await ownOrm?.close();
    },
  };
}
