/** Where the read state lives: an external PostgreSQL through DATABASE_URL, or the embedded default. */
export interface DatabaseConfig {
  url: string;
  poolMax: number;
  /** Bounds every statement so that no request waits on the database forever. */
  statementTimeoutMs: number;
  debug: boolean;
}

export function databaseConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const url = env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (npm start sets it for the embedded default)');
  return {
    url,
    poolMax: Number(env.DATABASE_POOL_MAX ?? 10),
    statementTimeoutMs: Number(env.DATABASE_STATEMENT_TIMEOUT_MS ?? 15_000),
    debug: env.DATABASE_DEBUG === 'true',
  };
}
