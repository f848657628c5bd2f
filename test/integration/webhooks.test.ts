import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { accountDocument } from '../../activities/read-state/accounting.ts';
import { freePort } from '../../dev/ports.ts';
import { temporalConnectionOptions } from '../../worker/client.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { tempDir } from '../../dev/temp-dir.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const exec = promisify(execFile);
const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const DIAN_INVOICE = join(FIXTURES, 'dian/stenfrank-invoice_unsigned_dian_v2.xml');
const SECRET = 'whsec-test-0123456789';

let api: TestApi;
let receiver: ErpReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startErpReceiver({ secret: SECRET });
});
afterEach(() => receiver.reset());
afterAll(async () => {
  await receiver.stop();
  await api.close();
});

async function subscribedCompany(event: string, extra: string[] = []) {
  const company = await makeCompany(api.orm, { country: 'COL' });
  const added = await ops('webhooks', 'add', '--company', company.company.id, '--event', event, '--url', `${receiver.url}/hooks`, '--secret', SECRET, ...extra);
  expect(added.code).toBe(0);
  return { ...company, subscription: added.stdout.reference as string };
}

const importInvoice = async (companyId: string) => (await ops('documents', 'import', '--company', companyId, DIAN_INVOICE)).stdout.documents[0].reference as string;
const deliveriesOf = async (companyId: string) => (await ops('webhooks', 'deliveries', '--company', companyId)).stdout.deliveries;
const hooks = (event: string) => receiver.received.filter((request) => request.path === '/hooks' && request.event === event);

describe('subscriptions', () => {
  it('keeps the secret sealed, generates one when none is given (shown once), and refuses unsafe URLs', async () => {
    const { company } = await makeCompany(api.orm);
    const generated = await ops('webhooks', 'add', '--company', company.id, '--event', 'document.accounted', '--url', 'https://erp.example.com/hooks', '--header', 'Authorization: Bearer abc');
    expect(generated.stdout).toMatchObject({ event: 'document.accounted', retries: 3, timeout_seconds: 120, headers: ['Authorization'], secret: expect.any(String) });
    const listed = await ops('webhooks', 'list', '--company', company.id);
    expect(JSON.stringify(listed.stdout)).not.toContain(generated.stdout.secret);
    expect(listed.stdout.subscriptions[0]).toMatchObject({ url: 'https://erp.example.com/hooks', timeout_seconds: 120 });
    for (const url of ['http://erp.example.com/hooks', 'https://10.0.0.8/hooks', 'https://169.254.169.254/latest', 'ftp://x']) {
      const refused = await ops('webhooks', 'add', '--company', company.id, '--event', 'document.created', '--url', url, '--secret', 's');
      expect(refused.code, url).toBe(1);
      expect(refused.stderr.error.code).toBe('invalid_url');
    }
    const removed = await ops('webhooks', 'remove', '--subscription', generated.stdout.reference);
    expect(removed.stdout).toEqual({ reference: generated.stdout.reference, removed: true });
    expect((await ops('webhooks', 'list', '--company', company.id)).stdout.subscriptions).toEqual([]);
  });
});

describe('document.created', () => {
  it('is delivered once per new document, signed over the raw body (openssl reproduces it)', async () => {
    const { company } = await subscribedCompany('document.created');
    const reference = await importInvoice(company.id);
    await expect.poll(() => hooks('document.created').length, { timeout: 30_000 }).toBe(1);
    const [request] = hooks('document.created');
    expect(request!.signatureValid).toBe(true);
    expect(request!.headers['x-service-timestamp']).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(request!.deliveryId).toMatch(/^[0-9a-f-]{36}$/);
    expect(request!.json).toMatchObject({
      event: 'document.created',
      data: {
        reference,
        document_number: 'SETP990000008',
        amount: 202306000,
        amount_currency: 'COP',
        fiscal_reference: expect.stringMatching(/^[0-9a-f]{96}$/),
        purchase_order: '546326432432',
        fiscal_metadata: { final_notes: expect.any(Array) },
        beneficiary: expect.objectContaining({ name: 'FACTURADOR DE EJEMPLO' }),
      },
    });

    const file = join(tempDir('ap-signature-'), 'body.json');
    writeFileSync(file, request!.rawBody);
    const { stdout } = await exec('openssl', ['dgst', '-sha256', '-hmac', SECRET, file]);
    expect(stdout.trim().split(/\s+/).pop()).toBe(request!.headers['x-service-signature']);

    await importInvoice(company.id);
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status).toBe('delivered');
    expect(hooks('document.created')).toHaveLength(1);
  });

  it('retries a failing receiver with back-off, recording every attempt, until it answers', async () => {
    const { company } = await subscribedCompany('document.created');
    receiver.behave('fail', { times: 2 });
    await importInvoice(company.id);
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status, { timeout: 20_000 }).toBe('delivered');
    const [delivery] = await deliveriesOf(company.id);
    expect(delivery.attempts.map((attempt: { status_code: number }) => attempt.status_code)).toEqual([500, 500, 200]);
    expect(delivery.attempts.every((attempt: { latency_ms: number }) => attempt.latency_ms >= 0)).toBe(true);
    expect(new Set(hooks('document.created').map((request) => request.deliveryId)).size).toBe(1);
  });

  it('gives up after 1 + retries attempts, and an operator can redeliver it', async () => {
    const { company } = await subscribedCompany('document.created', ['--retries', '1']);
    receiver.behave('fail', { times: 2 });
    await importInvoice(company.id);
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status, { timeout: 20_000 }).toBe('failed');
    const [failed] = await deliveriesOf(company.id);
    expect(failed.attempts).toHaveLength(2);
    const redelivered = await ops('webhooks', 'redeliver', '--delivery', failed.reference);
    expect(redelivered.stdout).toMatchObject({ reference: failed.reference, status: 'pending' });
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status, { timeout: 20_000 }).toBe('delivered');
    expect((await deliveriesOf(company.id))[0].attempts.map((attempt: { attempt: number }) => attempt.attempt)).toEqual([1, 2, 3]);
  });

  it('counts a receiver that does not answer in time as a failed attempt, and retries', async () => {
    const { company } = await subscribedCompany('document.created', ['--timeout', '1']);
    receiver.behave('slow', { delayMs: 2_500, times: 1 });
    await importInvoice(company.id);
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status, { timeout: 20_000 }).toBe('delivered');
    const [delivery] = await deliveriesOf(company.id);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining('No answer within 1 s') });
    expect(delivery.attempts.at(-1).status_code).toBe(200);
  });
});

describe('document.accounted', () => {
  async function accountedCompany() {
    const subscribed = await subscribedCompany('document.accounted');
    const reference = await importInvoice(subscribed.company.id);
    return { ...subscribed, reference };
  }

  it('hands the voucher over synchronously and stores what the ERP answered on erp_document', async () => {
    const { company, apiKey, reference } = await accountedCompany();
    const accounted = await ops('documents', 'account', '--document', reference);
    expect(accounted.code).toBe(0);
    expect(accounted.stdout).toMatchObject({ document: reference, accounting_entry: { status: 'posted', proposed_by_agent: true, is_crossed: false }, deliveries: 1 });
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
    const [request] = hooks('document.accounted');
    const data = (request!.json as { data: Record<string, any> }).data;
    expect(data).toMatchObject({ reference, document_number: 'SETP990000008', type: 'invoice', amount: 202306000, amount_currency: 'COP', issue_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) });
    expect(data.beneficiary).toMatchObject({ identifier_type: 'NIT', identifier_number: expect.any(String) });
    const lines = data.accounting_entry.journal_entry.erp_journal_entry_lines as { source: string; debit_cents: number | null; credit_cents: number | null }[];
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => (line.debit_cents === null) !== (line.credit_cents === null) && line.source === 'agent')).toBe(true);
    expect(data.accounting_entry.journal_entry.payment_lines[0]).toMatchObject({ quota_number: 1, due_date: expect.any(String) });

    await expect.poll(async () => (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.erp_document?.registered, { timeout: 30_000 }).toBe(true);
    const document = (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body;
    expect(document.logs.find((log: { metadata: { change?: string } }) => log.metadata.change === 'erp_registered').metadata).toMatchObject({ erp_invoice_id: receiver.registered.get(reference)!.erp_invoice_id });
    void company;
  });

  it('hands over a voucher whose first run stopped after its commit (Temporal unreachable) when the command runs again', async () => {
    const { company, reference } = await accountedCompany();
    const unreachable = new Client({ connection: Connection.lazy(temporalConnectionOptions(`127.0.0.1:${await freePort()}`)) });
    const deps = { orm: api.orm, webhookRetry: { initialMs: 200, maxMs: 1_000 }, publicUrl: inject('publicUrl') };
    await expect(accountDocument({ ...deps, temporal: { client: unreachable, taskQueue: inject('taskQueue') } }, { documentId: reference })).rejects.toThrow();
    await unreachable.connection.close();
    expect(receiver.registered.has(reference)).toBe(false);

    const again = await ops('documents', 'account', '--document', reference);
    expect(again.stderr.error.code).toBe('already_accounted');
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await deliveriesOf(company.id)).map((delivery: { status: string }) => delivery.status), { timeout: 30_000 }).toEqual(['delivered']);
  });

  it('on a 422 marks the accounting failed without retrying, and an operator retry registers it', async () => {
    const { company, apiKey, reference } = await accountedCompany();
    receiver.behave('reject', { code: 'period_closed', message: 'El periodo contable está cerrado', times: 1 });
    await ops('documents', 'account', '--document', reference);
    await expect.poll(async () => (await deliveriesOf(company.id)).find((delivery: { event: string }) => delivery.event === 'document.accounted')?.status, { timeout: 30_000 }).toBe('rejected');
    const rejected = (await deliveriesOf(company.id)).find((delivery: { event: string }) => delivery.event === 'document.accounted');
    expect(rejected.attempts).toHaveLength(1);
    const logs = (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.logs;
    expect(logs.find((log: { metadata: { change?: string } }) => log.metadata.change === 'erp_registration_failed').metadata).toMatchObject({ code: 'period_closed', message: 'El periodo contable está cerrado' });
    expect((await ops('documents', 'account', '--document', reference)).stderr.error.code).toBe('already_accounted');

    const retried = await ops('documents', 'account', '--document', reference, '--retry');
    expect(retried.stdout.deliveries).toBe(1);
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
    await expect.poll(async () => (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.erp_document?.registered, { timeout: 30_000 }).toBe(true);
    expect((await ops('documents', 'account', '--document', reference, '--retry')).stderr.error.code).toBe('already_registered');
  });

  it('retries an unreadable answer or one without erp_invoice_id, and the receiver registers the voucher once', async () => {
    const { company, reference } = await accountedCompany();
    receiver.behave('garbage', { times: 1 });
    await ops('documents', 'account', '--document', reference);
    await expect.poll(async () => (await deliveriesOf(company.id)).find((delivery: { event: string }) => delivery.event === 'document.accounted')?.status, { timeout: 30_000 }).toBe('delivered');
    expect(hooks('document.accounted').length).toBe(2);
    expect(receiver.registered.get(reference)).toMatchObject({ times: 2 });
    const em = companyEm(api.orm, company.id);
    const delivery = await em.findOneOrFail(WebhookDelivery, { event: 'document.accounted' });
    // The same delivery, sent again by an operator: the receiver answers the ids it gave before.
    await ops('webhooks', 'redeliver', '--delivery', delivery.id);
    await expect.poll(() => hooks('document.accounted').length, { timeout: 30_000 }).toBe(3);
    const first = receiver.registered.get(reference)!.erp_invoice_id;
    expect(hooks('document.accounted').at(-1)!.answer?.body).toContain(first);
  });

  it('sends a voucher given as a file as it is, flagging a crossed one, and refuses an unbalanced line', async () => {
    const { reference } = await accountedCompany();
    const dir = tempDir('ap-entry-');
    const entry = {
      summary: { total_cents: 202306000 },
      journal_entry: {
        document_type_external_id: 'FC',
        vendor_external_id: 'v-901210113',
        erp_journal_entry_lines: [
          { source: 'purchase_order', description: 'Línea OC', book_account_external_id: '143505', debit_cents: 172000000, purchase_order_line_external_id: 'po-1-line-1' },
          { source: 'document', description: 'IVA', book_account_external_id: '240810', debit_cents: 30306000 },
        ],
        payment_lines: [{ book_account_external_id: '220505', amount_cents: 202306000, due_date: '2019-06-12', quota_number: 1 }],
      },
      advance_crossings: [],
    };
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...entry, journal_entry: { ...entry.journal_entry, erp_journal_entry_lines: [{ source: 'front', book_account_external_id: '1', debit_cents: 1, credit_cents: 1 }] } }));
    const refused = await ops('documents', 'account', '--document', reference, '--file', join(dir, 'bad.json'));
    expect(refused.stderr.error).toMatchObject({ code: 'invalid_entry', message: expect.stringContaining('Exactly one of debit_cents and credit_cents') });
    writeFileSync(join(dir, 'entry.json'), JSON.stringify(entry));
    const accounted = await ops('documents', 'account', '--document', reference, '--file', join(dir, 'entry.json'));
    expect(accounted.stdout.accounting_entry).toMatchObject({ is_crossed: true, proposed_by_agent: false, lines: 2 });
    await expect.poll(() => hooks('document.accounted').length, { timeout: 30_000 }).toBe(1);
    const sent = (hooks('document.accounted')[0]!.json as { data: { accounting_entry: Record<string, any> } }).data.accounting_entry;
    expect(sent.is_crossed).toBe(true);
    expect(sent.journal_entry.erp_journal_entry_lines[0]).toMatchObject({ source: 'purchase_order', debit_cents: 172000000, purchase_order_line_external_id: 'po-1-line-1' });
    expect(sent.registration_payload).toEqual(entry);
  });

  it('resolves the accounting step of the flow when the ERP registers the voucher', async () => {
    const members = [{ email: 'ana@example.co', name: 'Ana' }];
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members });
    await ops('webhooks', 'add', '--company', company.id, '--event', 'document.accounted', '--url', `${receiver.url}/hooks`, '--secret', SECRET);
    const dir = tempDir('ap-flow-');
    writeFileSync(join(dir, 'flow.json'), JSON.stringify({ steps: [{ action: 'document.accounting', actionable: false }] }));
    await ops('flows', 'set', '--company', company.id, '--file', join(dir, 'flow.json'));
    const reference = await importInvoice(company.id);
    const current = async () => (await api.call('GET', `/public/api/v1/workflow-steps/current?entity_reference=${reference}`, { apiKey }));
    await expect.poll(async () => (await current()).body?.step?.action, { timeout: 30_000 }).toBe('document.accounting');
    await ops('documents', 'account', '--document', reference);
    await expect.poll(async () => (await current()).status, { timeout: 30_000 }).toBe(204);
  });
});
