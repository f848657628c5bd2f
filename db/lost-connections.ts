import type pg from 'pg';

/**
 * Gives the pool back the connections PostgreSQL dropped while they were checked out.
 *
 * Kysely (under MikroORM) hands a transaction's connection back only once its COMMIT or ROLLBACK succeeds. When the
 * server goes away mid-transaction both fail, the connection is never released, and each restart of the database
 * costs the pool the connections that were in a transaction, until the process has none left and waits forever.
 * So when a checked-out connection ends, it is released here, with an error, for the pool to discard and replace;
 * the holder's own release, if it ever comes, does nothing.
 */
export function giveBackLostConnections(pool: pg.Pool): void {
  const checkedOut = new Set<pg.PoolClient>();
  pool.on('acquire', (client) => checkedOut.add(client));
  pool.on('release', (_error, client) => checkedOut.delete(client as pg.PoolClient));
  pool.on('connect', (client) => {
    client.once('end', () => {
      const held = client as pg.PoolClient;
      if (!checkedOut.has(held)) return;
      const release = held.release.bind(held);
      held.release = () => {};
      release(new Error('The connection to PostgreSQL ended while checked out'));
    });
  });
}
