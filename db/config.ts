/** Where the read state lives: an external PostgreSQL through DATABASE_URL, or the embedded default. */
export interface DatabaseConfig {
  url: string;
  poolMax: number;
  /**
   * Connections kept open however long they idle (beyond them, one idle for 10 s is closed): a request after a quiet
   * spell would otherwise open one (authentication, a new server process with cold caches, statements prepared anew).
   */
  poolMin?: number;
  /** Bounds every statement so that no request waits on the database forever. */
  statementTimeoutMs: number;
  /** Bounds the wait for a connection (a free one from the pool, or a new one); unset, it waits as long as it takes. */
  connectTimeoutMs?: number;
  debug: boolean;
}

export function databaseConfigFromEnv(env: NodeJS.ProcessEnv = process.env): DatabaseConfig {
  const url = env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set (npm start sets it for the embedded default)');
  return {
    url,
    poolMax: Number(env.DATABASE_POOL_MAX ?? 10),
    poolMin: Number(env.DATABASE_POOL_MIN ?? 2),
    statementTimeoutMs: Number(env.DATABASE_STATEMENT_TIMEOUT_MS ?? 15_000),
    connectTimeoutMs: Number(env.DATABASE_CONNECT_TIMEOUT_MS ?? 10_000),
    debug: env.DATABASE_DEBUG === 'true',
  };
}
