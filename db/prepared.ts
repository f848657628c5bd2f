import { createHash } from 'node:crypto';
import type { Kysely } from '@mikro-orm/sql';
import type { Pool, PoolClient } from 'pg';
import type { EntityManager } from './orm.ts';

interface Prepared {
  name: string;
  text: string;
  /** Which named parameter fills each `$n`. */
  order: string[];
}

const preparedBySql = new Map<string, Prepared>();

/**
 * A transaction on one pooled connection, whose statements are prepared as `runStatement`'s are outside one: a write
 * of several statements that would otherwise go through the ORM's text-only path.
 */
export class Transaction {
  readonly em: EntityManager;
  readonly client: PoolClient;
  constructor(em: EntityManager, client: PoolClient) {
    this.em = em;
    this.client = client;
  }
}

/**
 * Runs one statement written with named parameters (`:companyId`; `array[:ids]` for an array) with bind parameters.
 * Outside a transaction it is a named prepared statement, which PostgreSQL plans once per connection: the renderers'
 * statements take longer to plan (some 2 ms) than to run. The ORM writes parameters into the SQL text, so each call
 * through it would be parsed and planned anew (a batch of 800 events is some 140 KB of text), and escaping a large
 * value into that text allocates it many times over (a 10 MB catalog batch took 1.5 GB). On a `Transaction` it runs
 * on that transaction's connection; inside an ORM transaction, on the ORM's connection for it. Either way the ORM's
 * logger sees it and its errors are the ORM's.
 */
export async function runStatement<T>(
  on: EntityManager | Transaction,
  sql: string,
  params: Record<string, unknown>,
): Promise<T[]> {
  const em = on instanceof Transaction ? on.em : on;
  const { name, text, values } = positional(sql, params);
  const started = performance.now();
  try {
    const trx = on instanceof Transaction ? undefined : em.getTransactionContext<Kysely<unknown>>();
    const rows = trx
      ? await inOrmTransaction<T>(trx, text, values)
      : ((
          await (on instanceof Transaction ? on.client : await em.getConnection().getNativeClient()).query({
            name,
            text,
            values,
          })
        ).rows as T[]);
    em.config.getLogger().logQuery({
      query: text,
      params: values,
      took: Math.round(performance.now() - started),
      results: rows.length,
      level: 'info',
    });
    return rows;
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
  }
}

type Connection = Parameters<Parameters<ReturnType<Kysely<unknown>['getExecutor']>['provideConnection']>[0]>[0];
type CompiledQuery = Parameters<Connection['executeQuery']>[0];

/** Runs a statement on the connection of the ORM's transaction, its values bound rather than written into the text. */
async function inOrmTransaction<T>(trx: Kysely<unknown>, text: string, values: unknown[]): Promise<T[]> {
  // The driver sends the text and its parameters as they are; the query tree only serves Kysely's own builders.
  const statement = { sql: text, parameters: values, query: { kind: 'RawNode' } } as unknown as CompiledQuery;
  const { rows } = await trx.getExecutor().provideConnection((connection) => connection.executeQuery<T>(statement));
  return rows;
}

/** The statement as PostgreSQL is given it: its name, `$n` placeholders, and their values in that order. */
export function positional(
  sql: string,
  params: Record<string, unknown>,
): { name: string; text: string; values: unknown[] } {
  const { name, text, order } = prepare(sql, Object.keys(params));
  return { name, text, values: order.map((key) => params[key]) };
}

/** Runs `work` in a transaction on one connection of the ORM's pool: committed when it returns, rolled back if it throws. */
export async function inTransaction<T>(em: EntityManager, work: (tx: Transaction) => Promise<T>): Promise<T> {
  const pool: Pool = await em.getConnection().getNativeClient();
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(new Transaction(em, client));
    await client.query('commit');
    return result;
  } catch (error) {
    // A connection that cannot even roll back is dropped, not given back to the pool.
    await client.query('rollback').catch((failure: Error) => (broken = failure));
    throw error;
  } finally {
    client.release(broken);
  }
}

function prepare(sql: string, keys: string[]): Prepared {
  let statement = preparedBySql.get(sql);
  if (statement) return statement;
  const order: string[] = [];
  const slot = (key: string) => {
    if (!order.includes(key)) order.push(key);
    return `$${order.indexOf(key) + 1}`;
  };
  const names = keys.join('|');
  const text =
    keys.length === 0
      ? sql
      : sql
          .replace(new RegExp(`array\\[:(${names})\\]`, 'g'), (_, key: string) => slot(key))
          .replace(new RegExp(`(?<!:):(${names})\\b`, 'g'), (_, key: string) => slot(key));
  statement = { name: `statement_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text, order };
  preparedBySql.set(sql, statement);
  return statement;
}

/** SQL that writes a timestamptz as Date.toISOString() does: UTC, milliseconds, `Z`. */
export const isoTimestamp = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
