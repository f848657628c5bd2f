// The product's Koa app in the bench process over an ORM that records every statement: how many queries a request
// costs, and the exact SQL of a request to EXPLAIN. Never used for timings.
import { DefaultLogger, type LoggerOptions } from '@mikro-orm/core';
import { Client, Connection } from '@temporalio/client';
import { localFileStorage } from '../platform/storage/file-storage.ts';
import { createApp } from '../api/app.ts';
import { apiConfigFromEnv } from '../api/config.ts';
import { createLogger } from '../platform/logger.ts';
import { listen } from '../api/server.ts';
import { initORM } from '../db/orm.ts';
import { DEFAULT_TASK_QUEUE } from '../temporal/config.ts';
import type { BenchStack } from './stack.ts';

export interface ObservedApi {
  /** Answers the request and the SQL statements it sent, with their parameters inlined. */
  request(path: string, apiKey: string): Promise<{ status: number; statements: string[] }>;
  close(): Promise<void>;
}

export async function observedApi(stack: BenchStack): Promise<ObservedApi> {
  let statements: string[] = [];
  class Recording extends DefaultLogger {
    override logQuery(context: Parameters<DefaultLogger['logQuery']>[0]) {
      statements.push(String(context.query));
    }
  }
  const orm = await initORM(
    { url: stack.databaseUrl, poolMax: 2, statementTimeoutMs: 60_000, debug: false },
    { debug: ['query', 'query-params'], loggerFactory: (options: LoggerOptions) => new Recording(options) },
  );
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const config = { ...apiConfigFromEnv({ ...stack.env, PORT: '0' }), port: 0 };
  const app = createApp({
    orm,
    temporal: { client: new Client({ connection }), taskQueue: DEFAULT_TASK_QUEUE },
    config,
    logger: createLogger('bench-observed', 'silent'),
    storage: localFileStorage(stack.env.STORAGE_DIR!),
  });
  const running = await listen(app, config);
  return {
    async request(path, apiKey) {
      statements = [];
      const response = await fetch(`${running.url}${path}`, { headers: { 'api-key': apiKey } });
      await response.arrayBuffer();
      return { status: response.status, statements: [...statements] };
    },
    async close() {
      await running.stop();
      await connection.close();
      await orm.close();
    },
  };
}
