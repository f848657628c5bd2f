import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../platform/logger.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { TEST_WEBHOOK_SECRET_KEY } from '../helpers/activity-deps.ts';
import { makeCompany } from '../helpers/companies.ts';
import { opsWith, type OpsResult } from '../helpers/ops.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// Every process of a full flow logs at its most verbose level; the credentials it handled must appear in none of it.
const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const WEBHOOK_SECRET = 'whsec-never-logged-7c1f0e';
const TASK_QUEUE = `secrets-${process.pid}`;
const FULL_API_KEY = /apk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}/;

const apiLogs: string[] = [];
const cliOutput: string[] = [];
let api: TestApi;
let receiver: ErpReceiver;
let worker: WorkerProcess;
beforeAll(async () => {
  const destination = new Writable({ write: (chunk, _encoding, done) => (apiLogs.push(String(chunk)), done()) });
  api = await startTestApi({ taskQueue: TASK_QUEUE, logger: createLogger('api', 'trace', destination) });
  receiver = await startErpReceiver({ secret: WEBHOOK_SECRET });
  worker = spawnWorker(TASK_QUEUE, { LOG_LEVEL: 'trace' });
  await worker.ready;
});
afterAll(async () => {
  await worker?.kill();
  await receiver?.stop();
  await api?.close();
});

async function ops(...args: string[]): Promise<OpsResult> {
  const result = await opsWith({ TEMPORAL_TASK_QUEUE: TASK_QUEUE, LOG_LEVEL: 'trace' }, ...args);
  cliOutput.push(typeof result.stderr === 'string' ? result.stderr : JSON.stringify(result.stderr));
  return result;
}

describe('logs', () => {
  it('never carry an API key, a webhook secret or the key that seals them, whatever the level', async () => {
    const { company, apiKey, scopedKey } = await makeCompany(api.orm, { country: 'MEX', bookAccounts: true });
    const readOnlyKey = await scopedKey(['payments:read']);
    const wrongSecret = `${apiKey.slice(0, apiKey.lastIndexOf('_'))}_${'x'.repeat(43)}`;

    expect(
      (
        await ops(
          'webhooks',
          'add',
          '--company',
          company.id,
          '--event',
          'document.created',
          '--url',
          `${receiver.url}/hooks`,
          '--secret',
          WEBHOOK_SECRET,
        )
      ).code,
    ).toBe(0);
    expect(
      (
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
          WEBHOOK_SECRET,
        )
      ).code,
    ).toBe(0);
    const generated = await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'payment.rescheduled',
      '--url',
      `${receiver.url}/payments`,
    );
    const generatedSecret: string = generated.stdout.secret;
    expect(generatedSecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const created = await ops('api-keys', 'create', '--company', company.id);
    const cliKey: string = created.stdout.api_key;
    expect(cliKey).toMatch(FULL_API_KEY);

    const imported = await ops(
      'documents',
      'import',
      '--company',
      company.id,
      join(FIXTURES, 'cfdi/cfdiutils-cfdi40-valid-ingreso.xml'),
    );
    const reference: string = imported.stdout.documents[0].reference;
    await expect
      .poll(() => receiver.received.filter((request) => request.path === '/hooks' && request.signatureValid).length)
      .toBe(1);

    const statuses = [
      (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).status,
      (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey: cliKey })).status,
      (await api.call('GET', '/public/api/v1/documents', { apiKey: wrongSecret })).status,
      (await api.call('GET', '/public/api/v1/documents', { apiKey: readOnlyKey })).status,
      (await api.call('GET', '/api/v1/erp/cost-centers', { headers: { authorization: `ApiKey ${apiKey}` } })).status,
      (await api.call('GET', '/api/v1/erp/cost-centers', { headers: { authorization: `ApiKey ${wrongSecret}` } }))
        .status,
      (
        await api.call('POST', `/public/api/v1/documents/${reference}/notes`, {
          apiKey,
          headers: { 'idempotency-key': apiKey },
          body: { comment: 'nota' },
        })
      ).status,
      (
        await api.call('POST', `/public/api/v1/documents/${reference}/notes`, {
          apiKey,
          rawBody: '{"comment":',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ];
    expect(statuses).toEqual([200, 200, 401, 403, 200, 401, 201, 400]);

    expect((await ops('documents', 'account', '--document', reference)).code).toBe(0);
    await expect.poll(() => receiver.registered.has(reference)).toBe(true);
    expect((await ops('webhooks', 'list', '--company', company.id)).code).toBe(0);

    const logs = { api: apiLogs.join(''), worker: worker.output(), cli: cliOutput.join('\n') };
    // The scan reads real logs: each process wrote some at this level.
    expect(logs.api).toContain('"msg":"request"');
    expect(logs.worker).toContain(reference);
    for (const [source, text] of Object.entries(logs)) {
      for (const secret of [
        apiKey,
        cliKey,
        readOnlyKey,
        wrongSecret.slice(-43),
        WEBHOOK_SECRET,
        generatedSecret,
        TEST_WEBHOOK_SECRET_KEY,
      ]) {
        expect(text.includes(secret), `${source} logs contain a secret`).toBe(false);
      }
      expect(text, `${source} logs contain an API key`).not.toMatch(FULL_API_KEY);
    }
  });
});
