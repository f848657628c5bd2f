import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initORM, type Orm } from '../../db/orm.ts';
import { migrateAndSeed } from '../../db/schema.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startOwnDatabase } from '../helpers/own-database.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// A PostgreSQL of this file's own, so that stopping it leaves the rest of the suite alone.
let db: Awaited<ReturnType<typeof startOwnDatabase>>;
let orm: Orm;
let api: TestApi;
let apiKey: string;

beforeAll(async () => {
  db = await startOwnDatabase('ap-readiness-');
  orm = await initORM({ url: db.url, poolMax: 3, statementTimeoutMs: 5_000, debug: false });
  await migrateAndSeed(orm);
  ({ apiKey } = await makeCompany(orm));
  api = await startTestApi({ orm });
});

afterAll(async () => {
  await api?.close();
  await orm?.close();
  await db?.remove();
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const started = performance.now();
  const response = await fetch(`${api.url}${path}`, { headers });
  return { status: response.status, body: await response.json(), ms: performance.now() - started };
};

describe('readiness', () => {
  it('is ready while PostgreSQL and Temporal answer', async () => {
    expect(await get('/readyz')).toMatchObject({
      status: 200,
      body: { status: 'ready', checks: { database: 'up', temporal: 'up' } },
    });
    expect((await get('/healthz')).body).toEqual({ status: 'ok' });
  });

  it('says the database is down, answers 503 service_unavailable, and recovers without a restart', async () => {
    await db.stop();
    const down = await get('/readyz');
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ status: 'unavailable', checks: { database: 'down', temporal: 'up' } });
    expect(down.ms).toBeLessThan(10_000);
    expect((await get('/healthz')).status).toBe(200);

    const request = await get('/public/api/v1/banks', { 'api-key': apiKey });
    expect(request.status).toBe(503);
    expect(request.body).toEqual({ code: 'service_unavailable', message: expect.any(String) });

    await db.start();
    await expect.poll(async () => (await get('/readyz')).status, { timeout: 20_000, interval: 250 }).toBe(200);
    expect((await get('/public/api/v1/banks', { 'api-key': apiKey })).status).toBe(200);
  });

  it('answers 503 once the wait for a pooled connection passes its bound, and serves again when one is free', async () => {
    const narrow = await initORM({
      url: db.url,
      poolMax: 1,
      connectTimeoutMs: 300,
      statementTimeoutMs: 5_000,
      debug: false,
    });
    const narrowApi = await startTestApi({ orm: narrow });
    const holding = Promise.withResolvers<void>();
    const released = Promise.withResolvers<void>();
    const held = narrow.em.fork().transactional(async (tx) => {
      await tx.execute('select 1');
      holding.resolve();
      await released.promise;
    });
    try {
      await holding.promise;
      const started = performance.now();
      const response = await fetch(`${narrowApi.url}/public/api/v1/banks`, { headers: { 'api-key': apiKey } });
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ code: 'service_unavailable', message: expect.any(String) });
      expect(performance.now() - started).toBeLessThan(5_000);
    } finally {
      released.resolve();
      await held;
    }
    expect((await fetch(`${narrowApi.url}/public/api/v1/banks`, { headers: { 'api-key': apiKey } })).status).toBe(200);
    await narrowApi.close();
    await narrow.close();
  });
});
