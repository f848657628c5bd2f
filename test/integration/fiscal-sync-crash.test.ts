import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { localFileStorage } from '../../platform/storage/file-storage.ts';
import { createApp } from '../../api/app.ts';
import { apiConfigFromEnv } from '../../api/config.ts';
import { createLogger } from '../../platform/logger.ts';
import { listen } from '../../api/server.ts';
import { initORM, type Orm } from '../../db/orm.ts';
import { makeCompany } from '../helpers/companies.ts';
import { FAST_FISCAL_SYNC_TIMING, registerCredentials, satProvider, uniqueRfc } from '../helpers/fiscal-sync.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';

// A task queue of this file's own, served only by the worker processes it starts and kills.
const TASK_QUEUE = `fiscal-crash-${process.pid}`;

let orm: Orm;
let connection: Connection;
let api: { url: string; stop(): Promise<void> };
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 5, statementTimeoutMs: 30_000, debug: false });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  // The API starts fiscal-sync workflows on this file's task queue.
  const config = { ...apiConfigFromEnv({}), port: 0, fiscalSync: FAST_FISCAL_SYNC_TIMING };
  const app = createApp({
    orm,
    temporal: { client: new Client({ connection, namespace: 'default' }), taskQueue: TASK_QUEUE },
    config,
    logger: createLogger('test-api', 'silent'),
    storage: localFileStorage(inject('storageDir')),
  });
  api = await listen(app, config);
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await api?.stop();
  await connection?.close();
  await orm?.close();
});

const call = async (method: string, path: string, apiKey: string) => {
  const response = await fetch(`${api.url}/public/api/v1${path}`, { method, headers: { 'api-key': apiKey } });
  return { status: response.status, body: (await response.json()) as any };
};

describe('a worker killed while the sync polls SAT', () => {
  it('loses nothing: another worker picks the durable loop up and the sync finishes with its documents', async () => {
    const { company, apiKey } = await makeCompany(orm, { country: 'MEX' });
    const rfc = uniqueRfc();
    await registerCredentials(orm, company, { ciecStatus: 'valid', rfc });
    await satProvider.behave(rfc, { polls: 20 });

    const first = spawnWorker(TASK_QUEUE);
    workers.push(first);
    await first.ready;
    const accepted = await call('POST', '/fiscal-sync', apiKey);
    expect(accepted.status).toBe(202);

    // The loop is under way (SAT "in progress"): now the worker dies.
    await expect
      .poll(async () => (await satProvider.extractions(rfc))[0]?.verifications ?? 0, { timeout: 30_000, interval: 100 })
      .toBeGreaterThanOrEqual(3);
    await first.kill('SIGKILL');
    const atDeath = (await satProvider.extractions(rfc))[0]!.verifications;
    expect((await call('GET', '/fiscal-sync/status', apiKey)).body.status).toBe('running');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    // Nobody polls while no worker serves the queue.
    expect((await satProvider.extractions(rfc))[0]!.verifications).toBeLessThanOrEqual(atDeath + 1);

    const second = spawnWorker(TASK_QUEUE);
    workers.push(second);
    await second.ready;
    await expect
      .poll(async () => (await call('GET', '/fiscal-sync/status', apiKey)).body.status, {
        timeout: 60_000,
        interval: 250,
      })
      .toBe('finished');
    const final = (await call('GET', '/fiscal-sync/status', apiKey)).body;
    expect(final).toMatchObject({
      country: 'MEX',
      status: 'finished',
      fetching_status: 'finished',
      extraction_id: accepted.body.extraction_id,
      error_code: null,
    });
    const [extraction] = await satProvider.extractions(rfc);
    expect(extraction!.verifications).toBeGreaterThanOrEqual(20);
    expect((await call('GET', '/documents', apiKey)).body.total).toBe(2);
  }, 120_000);
});
