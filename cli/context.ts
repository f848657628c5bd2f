import { Client, Connection } from '@temporalio/client';
import { fileStorageFromEnv, type FileStorage } from '../platform/storage/file-storage.ts';
import { retryScheduleFromEnv } from '../temporal/webhooks.ts';
import { temporalProcesses } from '../temporal/processes.ts';
import type { Processes } from '../services/processes.ts';
import { secretBoxFromEnv, type SecretBox } from '../platform/secret-box.ts';
import { deploymentFromEnv } from '../platform/deployment.ts';
import { databaseConfigFromEnv } from '../db/config.ts';
import { initORM, type Orm } from '../db/orm.ts';
import { readRuntime } from '../platform/embedded-runtime.ts';
import { temporalConfigFromEnv } from '../temporal/config.ts';
import type { TemporalHandle } from '../temporal/handle.ts';
import { CliError } from './errors.ts';

/** The environment a command runs in: DATABASE_URL / TEMPORAL_ADDRESS, or a running `npm start` found through .data/. */
export interface CliContext {
  orm(): Promise<Orm>;
  temporal(): Promise<TemporalHandle>;
  storage(): FileStorage;
  /** The API's public URL: PUBLIC_URL, or the running embedded default's. */
  publicUrl(): string;
  /** The processes services set going, on this deployment's Temporal. */
  processes(): Promise<Processes>;
  secrets(): SecretBox;
  close(): Promise<void>;
}

export function createCliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  let orm: Orm | undefined;
  let connection: Connection | undefined;
  const runtime = () => {
    const info = readRuntime();
    if (!info)
      throw new CliError(
        'not_configured',
        'Set DATABASE_URL and TEMPORAL_ADDRESS, or run `npm start` first so the CLI can find the embedded default',
      );
    return info;
  };
  return {
    async orm() {
      const url = env.DATABASE_URL ?? runtime().databaseUrl;
      // `documents import` keeps 8 files in flight, each in its own transaction.
      orm ??= await initORM({ ...databaseConfigFromEnv({ ...env, DATABASE_URL: url }), poolMax: 8 });
      return orm;
    },
    async temporal() {
      const config = temporalConfigFromEnv({
        ...env,
        TEMPORAL_ADDRESS: env.TEMPORAL_ADDRESS ?? runtime().temporalAddress,
      });
      connection ??= await Connection.connect({ address: config.address, ...config.security, connectTimeout: 5_000 });
      return { client: new Client({ connection, namespace: config.namespace }), taskQueue: config.taskQueue };
    },
    storage: () => fileStorageFromEnv(env),
    publicUrl: () => env.PUBLIC_URL ?? readRuntime()?.apiUrl ?? deploymentFromEnv(env).publicUrl,
    async processes() {
      return temporalProcesses(await this.temporal(), retryScheduleFromEnv(env));
    },
    secrets: () => secretBoxFromEnv(env),
    async close() {
      await orm?.close();
      await connection?.close();
    },
  };
}
