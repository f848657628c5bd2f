import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { setFlow } from '../helpers/builders.ts';
import { writeCfdiInvoices } from '../helpers/cfdi-files.ts';
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

describe('a worker killed in the middle of an automatic accounting', () => {
  it('loses no voucher and sends none twice: the retried accounting hands each over once', async () => {
    const ops = (...args: string[]) => opsWith({ TEMPORAL_TASK_QUEUE: TASK_QUEUE }, ...args);
    const member = { email: 'ana@example.mx', name: 'Ana' };
    const { company, apiKey } = await makeCompany(api.orm, {
      country: 'MEX',
      bookAccounts: true,
      features: ['workflow_api'],
      members: [member],
    });
    await setFlow(api.orm, company, {
      steps: [{ action: 'document.approval', kind: 'approval', assignees: [member.email] }],
    });
    await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'document.accounted',
      '--url',
      `${receiver.url}/auto`,
      '--secret',
      SECRET,
    );
    const first = spawnWorker(TASK_QUEUE);
    workers.push(first);
    await first.ready;
    const imported = await ops('documents', 'import', '--company', company.id, ...writeCfdiInvoices(3, 7100).files);
    const references: string[] = imported.stdout.documents.map((document: { reference: string }) => document.reference);
    const sdk = api.sdk(apiKey);
    for (const reference of references)
      await expect
        .poll(async () => (await sdk.getCurrentWorkflowStep({ query: { entity_reference: reference } })).status)
        .toBe(200);

    // The vouchers' deliveries cannot be written while this lock is held: each accounting stops in its transaction.
    const blocker = new pg.Client({ connectionString: inject('databaseUrl') });
    await blocker.connect();
    try {
      await blocker.query('begin');
      await blocker.query('lock table webhook_deliveries in share mode');
      for (const reference of references)
        expectStatus(await sdk.approveDocument({ params: { reference }, body: {} }), 200);
      const waiting = async () =>
        (
          await blocker.query(
            `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%webhook_deliveries%'`,
          )
        ).rows[0].n as number;
      // Each accounting waits on the lock, or for one of the worker's few database connections that do.
      await expect.poll(waiting, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
      await first.kill('SIGKILL');
    } finally {
      await blocker.query('rollback');
      await blocker.end();
    }

    const second = spawnWorker(TASK_QUEUE);
    workers.push(second);
    await second.ready;
    await expect
      .poll(() => references.every((reference) => receiver.registered.has(reference)), {
        timeout: 90_000,
        interval: 250,
      })
      .toBe(true);
    for (const reference of references) expect(receiver.registered.get(reference)!.times).toBe(1);
    const vouchers = (await api.orm.em
      .getConnection()
      .execute(`select document_id, count(*)::int as n from accounting_entries where company_id = ? group by 1`, [
        company.id,
      ])) as { n: number }[];
    expect(vouchers.map((row) => row.n)).toEqual([1, 1, 1]);
    const deliveries = (await ops('webhooks', 'deliveries', '--company', company.id, '--event', 'document.accounted'))
      .stdout.deliveries;
    expect(deliveries).toHaveLength(3);
  }, 180_000);
});
