import { DefaultLogger, type LoggerOptions } from '@mikro-orm/core';
import { inject } from 'vitest';
import { initORM, type Orm } from '../../db/orm.ts';

/** An ORM on the suite's database that records every SQL statement it sends, to prove bounded query counts. */
export async function countingOrm(): Promise<{ orm: Orm; queries: string[] }> {
  const queries: string[] = [];
  class Counting extends DefaultLogger {
    override logQuery(context: Parameters<DefaultLogger['logQuery']>[0]) {
      queries.push(String(context.query));
    }
  }
  const orm = await initORM(
    { url: inject('databaseUrl'), poolMax: 5, statementTimeoutMs: 30_000, debug: false },
    { debug: ['query'], loggerFactory: (options: LoggerOptions) => new Counting(options) },
  );
  return { orm, queries };
}
