import { createHash } from 'node:crypto';
import type { EntityManager } from './orm.ts';

interface Prepared {
  name: string;
  text: string;
  /** Which named parameter fills each `$n`. */
  order: string[];
}

const preparedBySql = new Map<string, Prepared>();

/**
 * Runs one statement (a read, or a write that stands alone) written with named parameters (`:companyId`;
 * `array[:ids]` for an array). Outside a transaction it is a named prepared statement with bind parameters, which
 * PostgreSQL plans once per connection: the renderers' statements take longer to plan (some 2 ms) than to run, and the
 * ORM writes parameters into the SQL text, so each call through it would be parsed and planned anew (a batch of 800
 * events is some 140 KB of text). Inside a transaction it runs through the ORM, on the transaction's connection.
 * Either way the ORM's logger sees it and its errors are the ORM's.
 */
export async function runStatement<T>(em: EntityManager, sql: string, params: Record<string, unknown>): Promise<T[]> {
  if (em.isInTransaction()) return em.execute<T[]>(sql, params);
  const statement = prepare(sql, Object.keys(params));
  const values = statement.order.map((key) => params[key]);
  const started = performance.now();
  try {
    const pool = await em.getConnection().getNativeClient();
    const { rows } = await pool.query({ name: statement.name, text: statement.text, values });
    em.config.getLogger().logQuery({
      query: statement.text,
      params: values,
      took: Math.round(performance.now() - started),
      results: rows.length,
      level: 'info',
    });
    return rows as T[];
  } catch (error) {
    throw em.getDriver().convertException(error as Error);
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
