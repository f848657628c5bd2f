import type { Tracer } from '@opentelemetry/api';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type { FileStorage } from '../platform/storage/file-storage.ts';
import type { Orm } from '../db/orm.ts';
import type { HttpMetrics } from './metrics.ts';
import type { ApiConfig } from './config.ts';

/** Everything the HTTP layer needs, injected so tests and processes build it their own way. */
export interface AppDeps {
  orm: Orm;
  temporal: { client: Client; taskQueue: string };
  config: ApiConfig;
  logger: Logger;
  /** Documents' XML and notes' attachments. */
  storage: FileStorage;
  metrics?: HttpMetrics;
  /** Set when tracing is on: a span per request, and the current span of its Temporal calls. */
  tracer?: Tracer;
}
