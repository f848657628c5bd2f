import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpMetrics, serveMetrics } from '../../api/metrics.ts';
import { freePort } from '../../dev/ports.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
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
      expect(text).toMatch(/http_request_duration_seconds_bucket\{le="0\.5",method="GET",route="\/public\/api\/v1\/banks",status="200"\} 2/);
      expect(text).toContain('process_cpu_user_seconds_total');
      expect((await api.call('GET', '/metrics')).status).toBe(404);
    } finally {
      server.close();
      await api.close();
    }
  });

  it("exposes the worker's Temporal telemetry and webhook delivery outcomes", async () => {
    const queue = `metrics-${process.pid}`;
    const address = `127.0.0.1:${await freePort()}`;
    worker = spawnWorker(queue, { WORKER_METRICS_ADDRESS: address });
    await worker.ready;
    const ops = (...args: string[]) => opsWith({ TEMPORAL_TASK_QUEUE: queue }, ...args);
    const api = await startTestApi();
    try {
      const { company } = await makeCompany(api.orm, { country: 'COL' });
      await ops('webhooks', 'add', '--company', company.id, '--event', 'document.created', '--url', `${receiver.url}/in`, '--secret', 'metrics-secret');
      await ops('documents', 'import', '--company', company.id, join(new URL('../fixtures/', import.meta.url).pathname, 'dian/stenfrank-invoice_unsigned_dian_v2.xml'));
      await expect.poll(() => receiver.received.length, { timeout: 30_000 }).toBe(1);
      await expect
        .poll(async () => (await (await fetch(`http://${address}/metrics`)).text()).match(/webhook_delivery_attempts_total\{[^}]*outcome="delivered"[^}]*\} (\d+)/)?.[1], { timeout: 20_000 })
        .toBe('1');
      const text = await (await fetch(`http://${address}/metrics`)).text();
      expect(text).toMatch(/temporal_workflow_task_execution_latency/);
      expect(text).toMatch(/webhook_delivery_latency/);
    } finally {
      await api.close();
    }
  });
});
