import { databaseConfigFromEnv } from '../db/config.ts';
import { initORM, type Orm } from '../db/orm.ts';
import { readRuntime } from '../dev/runtime.ts';
import { CliError } from './errors.ts';

/** The environment a command runs in: DATABASE_URL / TEMPORAL_ADDRESS, or a running `npm start` found through .data/. */
export interface CliContext {
  orm(): Promise<Orm>;
  temporalAddress(): string;
  close(): Promise<void>;
}

export function createCliContext(env: NodeJS.ProcessEnv = process.env): CliContext {
  let orm: Orm | undefined;
  const runtime = () => {
    const info = readRuntime();
    if (!info) throw new CliError('not_configured', 'Set DATABASE_URL and TEMPORAL_ADDRESS, or run `npm start` first so the CLI can find the embedded default');
    return info;
  };
  return {
    async orm() {
      const url = env.DATABASE_URL ?? runtime().databaseUrl;
      orm ??= await initORM({ ...databaseConfigFromEnv({ ...env, DATABASE_URL: url }), poolMax: 2 });
      return orm;
    },
    temporalAddress: () => env.TEMPORAL_ADDRESS ?? runtime().temporalAddress,
    async close() {
      await orm?.close();
    },
  };
}
