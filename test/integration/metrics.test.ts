import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpMetrics, serveMetrics } from '../../api/metrics.ts';
import { freePort } from '../../platform/ports.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  dianMailbox,
  FAST_FISCAL_SYNC_TIMING,
  registerCredentials,
  satProvider,
  uniqueNit,
  uniqueRfc,
} from '../helpers/fiscal-sync.ts';
import { opsWith } from '../helpers/ops.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let receiver: ErpReceiver;
let worker: WorkerProcess | undefined;
beforeAll(async () => {
  receiver = await startErpReceiver({ secret: 'metrics-secret' });
});
afterAll(async () => {
  await worker?.kill();
  await receiver.stop();
});

const queue = `metrics-${process.pid}`;
let metricsAddress: Promise<string> | undefined;
/** A worker process of this file's own, serving its Prometheus metrics; started once, by the first test that needs it. */
function workerMetricsAddress(): Promise<string> {
  return (metricsAddress ??= (async () => {
    const address = `127.0.0.1:${await freePort()}`;
    worker = spawnWorker(queue, { WORKER_METRICS_ADDRESS: address });
    await worker.ready;
    return address;
  })());
}

/** The samples of one metric in Prometheus text, with their labels. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  return [...text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm'))].map(([, labels, value]) => ({
    labels: Object.fromEntries([...labels!.matchAll(/(\w+)="([^"]*)"/g)].map(([, key, label]) => [key!, label!])),
    value: Number(value),
  }));
}

describe('metrics', () => {
  it('counts API requests by route and status on a port of their own, not on the public one', async () => {
    const metrics = createHttpMetrics();
    const api: TestApi = await startTestApi({ metrics });
    const port = await freePort();
    const server = await serveMetrics(metrics, '127.0.0.1', port);
    try {
      const { apiKey } = await makeCompany(api.orm);
      await api.call('GET', '/public/api/v1/banks', { apiKey });
      await api.call('GET', '/public/api/v1/banks', { apiKey });
      await api.call('GET', '/public/api/v1/banks');
      await api.call('GET', '/no/such/path');
      const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
      expect(text).toContain('http_requests_total{method="GET",route="/public/api/v1/banks",status="200"} 2');
      expect(text).toContain('http_requests_total{method="GET",route="/public/api/v1/banks",status="401"} 1');
      expect(text).toContain('http_requests_total{method="GET",route="unmatched",status="404"} 1');
      // Every observation lands in the last bucket, however slow the machine.
      expect(text).toContain(
        'http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/public/api/v1/banks",status="200"} 2',
      );
      expect(text).toContain(
        'http_request_duration_seconds_count{method="GET",route="/public/api/v1/banks",status="200"} 2',
      );
      expect(text).toContain('process_cpu_user_seconds_total');
      expect((await api.call('GET', '/metrics')).status).toBe(404);
    } finally {
      server.close();
      await api.close();
    }
  });

  it("exposes the worker's Temporal telemetry and webhook delivery outcomes", async () => {
    const address = await workerMetricsAddress();
    const ops = (...args: string[]) => opsWith({ TEMPORAL_TASK_QUEUE: queue }, ...args);
    const api = await startTestApi();
    try {
      const { company } = await makeCompany(api.orm, { country: 'COL' });
      await ops(
        'webhooks',
        'add',
        '--company',
        company.id,
        '--event',
        'document.created',
        '--url',
        `${receiver.url}/in`,
        '--secret',
        'metrics-secret',
      );
      await ops(
        'documents',
        'import',
        '--company',
        company.id,
        join(new URL('../fixtures/', import.meta.url).pathname, 'dian/stenfrank-invoice_unsigned_dian_v2.xml'),
      );
      await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(1);
      await expect
        .poll(
          async () =>
            (await (await fetch(`http://${address}/metrics`)).text()).match(
              /webhook_delivery_attempts_total\{[^}]*outcome="delivered"[^}]*\} (\d+)/,
            )?.[1],
          { timeout: 20_000 },
        )
        .toBe('1');
      // The attempt is counted inside the workflow task that runs it; the task's own latency is recorded once it completes.
      await expect
        .poll(
          async () =>
            (await (await fetch(`http://${address}/metrics`)).text())
              .match(/^(temporal_workflow_task_execution_latency|webhook_delivery_latency)_count/gm)
              ?.sort(),
          { timeout: 20_000 },
        )
        .toEqual(
          expect.arrayContaining(['temporal_workflow_task_execution_latency_count', 'webhook_delivery_latency_count']),
        );
    } finally {
      await api.close();
    }
  });

  it('counts fiscal synchronisations by country, outcome and error code, with the documents they imported', async () => {
    const address = await workerMetricsAddress();
    const api = await startTestApi({ taskQueue: queue, config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
    const sync = async (apiKey: string) =>
      expect((await api.call('POST', '/public/api/v1/fiscal-sync', { apiKey })).status).toBe(202);
    const syncStatus = async (apiKey: string) =>
      (await api.call('GET', '/public/api/v1/fiscal-sync/status', { apiKey })).body.status;
    try {
      // Mexico: one extraction imports the stamped CFDI fixtures (2 new documents), another fails at SAT.
      const imported = await makeCompany(api.orm, { country: 'MEX' });
      await registerCredentials(api.orm, imported.company, { ciecStatus: 'valid', rfc: uniqueRfc() });
      const failing = await makeCompany(api.orm, { country: 'MEX' });
      const failingRfc = uniqueRfc();
      await registerCredentials(api.orm, failing.company, { ciecStatus: 'valid', rfc: failingRfc });
      await satProvider.behave(failingRfc, { outcome: 'error', satStatusCode: '404', polls: 1 });
      // Colombia: one forwarded e-mail with an AttachedDocument (1 new document).
      const colombian = await makeCompany(api.orm, { country: 'COL' });
      await registerCredentials(api.orm, colombian.company, {
        dianForwarding: true,
        dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
      });
      dianMailbox.deliver(colombian.company.id, {
        attachments: [
          {
            name: 'ad.xml',
            data: readFileSync(new URL('../fixtures/dian/constructed-attached-document-invoice.xml', import.meta.url)),
          },
        ],
        receivedAt: new Date(Date.now() - 86_400_000),
      });

      await Promise.all([sync(imported.apiKey), sync(failing.apiKey), sync(colombian.apiKey)]);
      for (const { apiKey } of [imported, failing, colombian])
        await expect.poll(() => syncStatus(apiKey), { timeout: 30_000, interval: 200 }).toMatch(/^(finished|failed)$/);

      const scrape = async () => (await fetch(`http://${address}/metrics`)).text();
      const outcomes = async () =>
        samples(await scrape(), 'fiscal_sync_outcomes_total')
          .map(({ labels, value }) => ({
            country: labels.country,
            outcome: labels.outcome,
            error_code: labels.error_code,
            value,
          }))
          .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
      await expect.poll(outcomes, { timeout: 20_000 }).toEqual([
        { country: 'COL', outcome: 'finished', error_code: 'none', value: 1 },
        { country: 'MEX', outcome: 'failed', error_code: 'sat_request_error', value: 1 },
        { country: 'MEX', outcome: 'finished', error_code: 'none', value: 1 },
      ]);
      const text = await scrape();
      const documents = Object.fromEntries(
        samples(text, 'fiscal_sync_documents_imported_total').map(({ labels, value }) => [labels.country, value]),
      );
      expect(documents).toEqual({ COL: 1, MEX: 2 });
      const durations = samples(text, 'fiscal_sync_duration_count').map(({ labels, value }) => [
        labels.country,
        labels.outcome,
        value,
      ]);
      expect(durations.sort((a, b) => a.join().localeCompare(b.join()))).toEqual([
        ['COL', 'finished', 1],
        ['MEX', 'failed', 1],
        ['MEX', 'finished', 1],
      ]);
      // Buckets fit syncs of minutes to days, not the SDK's sub-10-second defaults.
      expect(samples(text, 'fiscal_sync_duration_bucket').map(({ labels }) => labels.le)).toContain('345600');
    } finally {
      await api.close();
    }
  });
});
