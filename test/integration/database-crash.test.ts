import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM, type Orm } from '../../db/orm.ts';
import { startOwnDatabase } from '../helpers/own-database.ts';

// A PostgreSQL of this file's own, killed while transactions hold every connection of a pool.
let db: Awaited<ReturnType<typeof startOwnDatabase>>;
let orm: Orm;

beforeAll(async () => {
  db = await startOwnDatabase('ap-db-crash-');
  orm = await initORM({ url: db.url, poolMax: 2, statementTimeoutMs: 120_000, debug: false });
});

afterAll(async () => {
  await orm?.close();
  await db?.remove();
});

/** Backends of the database running a statement like this one, seen from outside the pool under test. */
async function running(statement: string): Promise<number> {
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(`select count(*)::int as n from pg_stat_activity where query = $1`, [statement])).rows[0]
      .n;
  } finally {
    await client.end();
  }
}

const answersWithin = (ms: number, query: Promise<unknown>) =>
  Promise.race([
    query.then(
      () => 'answered',
      () => 'failed',
    ),
    new Promise((resolve) => setTimeout(() => resolve('no connection from the pool'), ms)),
  ]);

describe('PostgreSQL killed mid-transaction', () => {
  it('gives the pool its connections back, so that queries run again once the server is back', async () => {
    const sleep = 'select pg_sleep(120)';
    const transactions = Array.from({ length: 2 }, () =>
      orm.em.fork().transactional((em) => em.getConnection().execute(sleep, [], 'all', em.getTransactionContext())),
    );
    // Settled from the start: the transactions fail while the server is being killed, before kill() returns.
    const settled = Promise.allSettled(transactions);
    await expect.poll(() => running(sleep), { timeout: 20_000, interval: 100 }).toBe(2);

    await db.kill();
    const outcomes = await settled;
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    await db.start();

    await expect
      .poll(() => answersWithin(5_000, orm.em.fork().getConnection().execute('select 1')), {
        timeout: 30_000,
        interval: 250,
      })
      .toBe('answered');
  });
});
