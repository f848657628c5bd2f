import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { opsWith } from '../helpers/ops.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const SECRET = 'whsec-crash';
// A task queue of this file's own, served only by the worker processes it starts and kills.
const TASK_QUEUE = `crash-${process.pid}`;

let api: TestApi;
let receiver: ErpReceiver;
const workers: WorkerProcess[] = [];
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await receiver.stop();
  await api.close();
});

describe('a worker killed in the middle of a delivery', () => {
  it('loses no event: after a restart every document.accounted reaches the ERP, registered once each', async () => {
    const ops = (...args: string[]) => opsWith({ TEMPORAL_TASK_QUEUE: TASK_QUEUE }, ...args);
    const { company } = await makeCompany(api.orm, { country: 'MEX', bookAccounts: true });
    await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'document.accounted',
      '--url',
      `${receiver.url}/erp`,
      '--secret',
      SECRET,
      '--timeout',
      '8',
    );
    const first = spawnWorker(TASK_QUEUE);
    workers.push(first);
    await first.ready;
    const imported = await ops(
      'documents',
      'import',
      '--company',
      company.id,
      join(FIXTURES, 'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml'),
      join(FIXTURES, 'cfdi/cfdiutils-cfdi40-valid-ingreso.xml'),
    );
    const references: string[] = imported.stdout.documents.map((document: { reference: string }) => document.reference);
    expect(references).toHaveLength(2);

    receiver.behave('slow', { delayMs: 4_000 });
    for (const reference of references)
      expect((await ops('documents', 'account', '--document', reference)).code).toBe(0);
    // Both requests are in flight, held by the slow receiver: now the worker dies.
    await expect
      .poll(() => receiver.received.filter((request) => request.path === '/erp').length, { timeout: 30_000 })
      .toBe(2);
    await first.kill('SIGKILL');
    receiver.behave('ok');

    const second = spawnWorker(TASK_QUEUE);
    workers.push(second);
    await second.ready;
    await expect
      .poll(() => references.every((reference) => receiver.registered.has(reference)), {
        timeout: 60_000,
        interval: 250,
      })
      .toBe(true);
    for (const reference of references) expect(receiver.registered.get(reference)!.times).toBeGreaterThanOrEqual(1);
    const deliveries = (await ops('webhooks', 'deliveries', '--company', company.id, '--event', 'document.accounted'))
      .stdout.deliveries;
    // The retried attempt first waits out the dead run's hold on the delivery (the receiver's timeout and a margin).
    await expect
      .poll(
        async () =>
          (
            await ops('webhooks', 'deliveries', '--company', company.id, '--event', 'document.accounted')
          ).stdout.deliveries.map((delivery: { status: string }) => delivery.status),
        { timeout: 60_000 },
      )
      .toEqual(['delivered', 'delivered']);
    expect(deliveries).toHaveLength(2);
  }, 180_000);
});
