import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { accountDocument } from '../../services/accounting/accounting.ts';
import { ErpDocumentData } from '../../read-models/erp-document-schema.ts';
import { freePort } from '../../platform/ports.ts';
import { temporalConnectionOptions } from '../../temporal/connection.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { WebhookSubscription } from '../../db/webhooks/webhook-subscription.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { Document } from '../../db/documents/document.entity.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import { recordEvent } from '../../services/webhooks/events.ts';
import { documentCreatedPayload } from '../../services/webhooks/payloads.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { jsonReply, startScriptedReceiver, textReply } from '../helpers/scripted-receiver.ts';
import { JOURNAL_ENTRY_KEYS, JOURNAL_LINE_KEYS, PAYMENT_LINE_KEYS, keysOf } from '../helpers/voucher-keys.ts';
import { temporalProcesses } from '../../temporal/processes.ts';

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
afterEach(() => {
  expectPublishedShapes(receiver.received);
  receiver.reset();
});
afterAll(async () => {
  await receiver.stop();
  await api.close();
});

async function subscribedCompany(event: string, extra: string[] = []) {
  const company = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
  const added = await ops(
    'webhooks',
    'add',
    '--company',
    company.company.id,
    '--event',
    event,
    '--url',
    `${receiver.url}/hooks`,
    '--secret',
    SECRET,
    ...extra,
  );
  expect(added.code).toBe(0);
  return { ...company, subscription: added.stdout.reference as string };
}

const importInvoice = async (companyId: string) =>
  (await ops('documents', 'import', '--company', companyId, DIAN_INVOICE)).stdout.documents[0].reference as string;
const deliveriesOf = async (companyId: string) =>
  (await ops('webhooks', 'deliveries', '--company', companyId)).stdout.deliveries;
const hooks = (event: string) =>
  receiver.received.filter((request) => request.path === '/hooks' && request.event === event);

describe('subscriptions', () => {
  it('keeps the secret sealed, generates one when none is given (shown once), and refuses unsafe URLs', async () => {
    const { company } = await makeCompany(api.orm);
    const generated = await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'document.accounted',
      '--url',
      'https://erp.example.com/hooks',
      '--header',
      'Authorization: Bearer abc',
    );
    expect(generated.stdout).toMatchObject({
      event: 'document.accounted',
      retries: 3,
      timeout_seconds: 120,
      headers: ['Authorization'],
      secret: expect.any(String),
    });
    const listed = await ops('webhooks', 'list', '--company', company.id);
    expect(JSON.stringify(listed.stdout)).not.toContain(generated.stdout.secret);
    expect(listed.stdout.subscriptions[0]).toMatchObject({
      url: 'https://erp.example.com/hooks',
      timeout_seconds: 120,
    });
    for (const url of [
      'http://erp.example.com/hooks',
      'https://10.0.0.8/hooks',
      'https://169.254.169.254/latest',
      'ftp://x',
    ]) {
      const refused = await ops(
        'webhooks',
        'add',
        '--company',
        company.id,
        '--event',
        'document.created',
        '--url',
        url,
        '--secret',
        's',
      );
      expect(refused.code, url).toBe(1);
      expect(refused.stderr.error.code).toBe('invalid_url');
    }
    const removed = await ops('webhooks', 'remove', '--subscription', generated.stdout.reference);
    expect(removed.stdout).toEqual({ reference: generated.stdout.reference, removed: true });
    expect((await ops('webhooks', 'list', '--company', company.id)).stdout.subscriptions).toEqual([]);
  });

  it('refuses extra headers that name ours in any case, and sends ours over those of an earlier subscription', async () => {
    const { company } = await makeCompany(api.orm);
    const add = (...headers: string[]) =>
      ops(
        'webhooks',
        'add',
        '--company',
        company.id,
        '--event',
        'document.created',
        '--url',
        `${receiver.url}/hooks`,
        '--secret',
        SECRET,
        ...headers.flatMap((header) => ['--header', header]),
      );
    for (const [headers, named] of [
      [['X-Service-Signature: forged'], 'X-Service-Signature'],
      [['content-type: text/plain'], 'content-type'],
      [['Authorization: a', 'authorization: b'], 'authorization'],
    ] as const) {
      const refused = await add(...headers);
      expect(refused.code, named).toBe(1);
      expect(refused.stderr.error).toEqual({
        code: 'invalid_header',
        message: expect.stringContaining(`header ${named} `),
      });
    }
    expect((await ops('webhooks', 'list', '--company', company.id)).stdout.subscriptions).toEqual([]);

    // A subscription stored before names were refused: the headers it repeats are replaced by ours, never joined.
    const earlier = await subscribedCompany('document.created', ['--header', 'Authorization: Bearer abc']);
    await companyEm(api.orm, earlier.company.id).nativeUpdate(
      WebhookSubscription,
      { id: earlier.subscription },
      { headers: { Authorization: 'Bearer abc', 'x-service-signature': 'forged', 'CONTENT-TYPE': 'text/plain' } },
    );
    await importInvoice(earlier.company.id);
    await expect.poll(() => hooks('document.created').length, { timeout: 30_000 }).toBe(1);
    const { headers, signatureValid } = hooks('document.created')[0]!;
    expect(signatureValid).toBe(true);
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-service-signature': expect.stringMatching(/^[0-9a-f]{64}$/),
      authorization: 'Bearer abc',
    });
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

  it("goes out from its subscription's queue in batches of at most 25, and one queued again once final is not sent again", async () => {
    const { company } = await subscribedCompany('document.created');
    const reference = await importInvoice(company.id);
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status, { timeout: 30_000 }).toBe('delivered');
    const em = companyEm(api.orm, company.id);
    const delivery = await em.findOneOrFail(WebhookDelivery, { subjectId: reference }, { populate: ['subscription'] });
    const queue = api.client.workflow.getHandle(workflowIds.webhookQueue(delivery.subscription.id));
    const sends = async () =>
      (await queue.fetchHistory()).events!.filter((event) => event.activityTaskCompletedEventAttributes).length;
    expect(await sends()).toBe(1);
    // The document's own workflow only ran its flow (started with where it stands: nothing to read, nothing to send).
    const lifecycle = (await api.client.workflow.getHandle(workflowIds.document(reference)).fetchHistory()).events!;
    expect(
      lifecycle.filter((event) => event.markerRecordedEventAttributes || event.activityTaskScheduledEventAttributes),
    ).toHaveLength(0);
    await expect(
      api.client.workflow.getHandle(workflowIds.webhook(delivery.subscription.id, delivery.eventId)).describe(),
    ).rejects.toBeInstanceOf(WorkflowNotFoundError);

    // Queued again (a retried import) on a fresh queue, with 30 more events: the queue sends them in batches of at
    // most 25, and its send finds the first delivery final and sends it nothing.
    await queue.terminate('a fresh queue for the test');
    const document = await em.findOneOrFail(Document, { id: reference });
    const more: DeliveryToStart[] = [];
    for (let n = 0; n < 30; n++)
      more.push(
        ...(await recordEvent(em, company, 'document.created', reference, () =>
          documentCreatedPayload(em, document, api.url),
        )),
      );
    await temporalProcesses(
      { client: api.client, taskQueue: inject('taskQueue') },
      { initialMs: 200, maxMs: 1_000 },
    ).queueDeliveries([delivery, ...more]);
    await expect.poll(sends, { timeout: 20_000 }).toBe(2);
    await expect
      .poll(async () =>
        (await deliveriesOf(company.id)).filter((row: { status: string }) => row.status === 'delivered'),
      )
      .toHaveLength(31);
    expect(hooks('document.created')).toHaveLength(31);
    const first = (await deliveriesOf(company.id)).find((row: { reference: string }) => row.reference === delivery.id);
    expect(first.attempts).toHaveLength(1);
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
    // The queue made the first attempt; the rest of the schedule ran in the delivery's own workflow.
    const own = api.client.workflow.getHandle(workflowIds.webhook(delivery.subscription, delivery.event_id));
    expect(await own.result()).toBe('delivered');
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
    expect((await deliveriesOf(company.id))[0].attempts.map((attempt: { attempt: number }) => attempt.attempt)).toEqual(
      [1, 2, 3],
    );
  });

  it('counts a receiver that does not answer in time as a failed attempt, and retries', async () => {
    const { company } = await subscribedCompany('document.created', ['--timeout', '1']);
    receiver.behave('slow', { delayMs: 2_500, times: 1 });
    await importInvoice(company.id);
    await expect.poll(async () => (await deliveriesOf(company.id))[0]?.status, { timeout: 20_000 }).toBe('delivered');
    const [delivery] = await deliveriesOf(company.id);
    expect(delivery.attempts[0]).toMatchObject({
      status_code: null,
      error: expect.stringContaining('No answer within 1 s'),
    });
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
    expect(accounted.stdout).toMatchObject({
      document: reference,
      accounting_entry: { status: 'posted', proposed_by_agent: true, is_crossed: false },
      deliveries: 1,
    });
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
    const [request] = hooks('document.accounted');
    const data = (request!.json as { data: Record<string, any> }).data;
    expect(data).toMatchObject({
      reference,
      document_number: 'SETP990000008',
      type: 'invoice',
      amount: 202306000,
      amount_currency: 'COP',
      issue_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(data.beneficiary).toMatchObject({ identifier_type: 'NIT', identifier_number: expect.any(String) });
    const lines = data.accounting_entry.journal_entry.erp_journal_entry_lines as {
      source: string;
      debit_cents: number | null;
      credit_cents: number | null;
    }[];
    expect(lines.length).toBeGreaterThan(0);
    expect(
      lines.every((line) => (line.debit_cents === null) !== (line.credit_cents === null) && line.source === 'agent'),
    ).toBe(true);
    expect(data.accounting_entry.journal_entry.payment_lines[0]).toMatchObject({
      quota_number: 1,
      due_date: expect.any(String),
    });
    // Every key the contract lists, null or empty where the agent cannot tell, and the amounts in the local currency.
    const journal = data.accounting_entry.journal_entry as Record<string, any>;
    expect(keysOf(journal)).toEqual([...JOURNAL_ENTRY_KEYS, 'currency', 'exchange_rate'].sort());
    expect(journal).toMatchObject({
      issue_date: '2019-06-12',
      expiration_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      document_type_external_id: null,
      cost_center_external_id: null,
      currency: 'COP',
      exchange_rate: null,
    });
    const localKeys = [...JOURNAL_LINE_KEYS, 'local_credit_cents', 'local_debit_cents'].sort();
    for (const line of journal.erp_journal_entry_lines) {
      expect(keysOf(line)).toEqual(localKeys);
      // A document in the local currency: its amounts are already local.
      expect([line.local_debit_cents, line.local_credit_cents]).toEqual([line.debit_cents, line.credit_cents]);
    }
    for (const line of journal.payment_lines) {
      expect(keysOf(line)).toEqual([...PAYMENT_LINE_KEYS, 'local_amount_cents'].sort());
      expect(line.local_amount_cents).toBe(line.amount_cents);
    }

    await expect
      .poll(
        async () =>
          (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.erp_document?.registered,
        { timeout: 30_000 },
      )
      .toBe(true);
    const document = (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body;
    expect(
      document.logs.find((log: { metadata: { change?: string } }) => log.metadata.change === 'erp_registered').metadata,
    ).toMatchObject({ erp_invoice_id: receiver.registered.get(reference)!.erp_invoice_id });
    void company;
  });

  it('hands over a voucher whose first run stopped after its commit (Temporal unreachable) when the command runs again', async () => {
    const { company, reference } = await accountedCompany();
    const unreachable = new Client({
      connection: Connection.lazy(
        temporalConnectionOptions({ address: `127.0.0.1:${await freePort()}`, security: {} }),
      ),
    });
    const processes = temporalProcesses(
      { client: unreachable, taskQueue: inject('taskQueue') },
      { initialMs: 200, maxMs: 1_000 },
    );
    await expect(
      accountDocument({ orm: api.orm, processes, publicUrl: inject('publicUrl') }, { documentId: reference }),
    ).rejects.toThrow();
    await unreachable.connection.close();
    expect(receiver.registered.has(reference)).toBe(false);

    const again = await ops('documents', 'account', '--document', reference);
    expect(again.stderr.error).toMatchObject({ code: 'already_accounted' });
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
    await expect
      .poll(async () => (await deliveriesOf(company.id)).map((delivery: { status: string }) => delivery.status), {
        timeout: 30_000,
      })
      .toEqual(['delivered']);
  });

  it('on a 422 marks the accounting failed without retrying, and an operator retry registers it', async () => {
    const { company, apiKey, reference } = await accountedCompany();
    receiver.behave('reject', { code: 'period_closed', message: 'El periodo contable está cerrado', times: 1 });
    await ops('documents', 'account', '--document', reference);
    await expect
      .poll(
        async () =>
          (await deliveriesOf(company.id)).find(
            (delivery: { event: string }) => delivery.event === 'document.accounted',
          )?.status,
        { timeout: 30_000 },
      )
      .toBe('rejected');
    const rejected = (await deliveriesOf(company.id)).find(
      (delivery: { event: string }) => delivery.event === 'document.accounted',
    );
    expect(rejected.attempts).toHaveLength(1);
    const logs = (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.logs;
    expect(
      logs.find((log: { metadata: { change?: string } }) => log.metadata.change === 'erp_registration_failed').metadata,
    ).toMatchObject({ code: 'period_closed', message: 'El periodo contable está cerrado' });
    expect((await ops('documents', 'account', '--document', reference)).stderr.error.code).toBe('already_accounted');

    const retried = await ops('documents', 'account', '--document', reference, '--retry');
    expect(retried.stdout.deliveries).toBe(1);
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
    await expect
      .poll(
        async () =>
          (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.erp_document?.registered,
        { timeout: 30_000 },
      )
      .toBe(true);
    expect((await ops('documents', 'account', '--document', reference, '--retry')).stderr.error.code).toBe(
      'already_registered',
    );
  });

  it('retries an unreadable answer or one without erp_invoice_id, and the receiver registers the voucher once', async () => {
    const { company, reference } = await accountedCompany();
    receiver.behave('garbage', { times: 1 });
    await ops('documents', 'account', '--document', reference);
    await expect
      .poll(
        async () =>
          (await deliveriesOf(company.id)).find(
            (delivery: { event: string }) => delivery.event === 'document.accounted',
          )?.status,
        { timeout: 30_000 },
      )
      .toBe('delivered');
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

  it('sends a voucher given as a file with every key the contract lists, flagging a crossed one, and refuses an unbalanced line', async () => {
    const { reference } = await accountedCompany();
    const dir = tempDir('ap-entry-');
    const entry = {
      summary: { total_cents: 202306000 },
      journal_entry: {
        document_type_external_id: 'FC',
        vendor_external_id: 'v-901210113',
        erp_journal_entry_lines: [
          {
            source: 'purchase_order',
            description: 'Línea OC',
            book_account_external_id: '143505',
            debit_cents: 172000000,
            purchase_order_line_external_id: 'po-1-line-1',
          },
          { source: 'document', description: 'IVA', book_account_external_id: '240810', debit_cents: 30306000 },
        ],
        payment_lines: [
          { book_account_external_id: '220505', amount_cents: 202306000, due_date: '2019-06-12', quota_number: 1 },
        ],
      },
      advance_crossings: [],
    };
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({
        ...entry,
        journal_entry: {
          ...entry.journal_entry,
          erp_journal_entry_lines: [
            { source: 'front', book_account_external_id: '1', debit_cents: 1, credit_cents: 1 },
          ],
        },
      }),
    );
    const refused = await ops('documents', 'account', '--document', reference, '--file', join(dir, 'bad.json'));
    expect(refused.stderr.error).toMatchObject({
      code: 'invalid_entry',
      message: expect.stringContaining('Exactly one of debit_cents and credit_cents'),
    });
    writeFileSync(join(dir, 'entry.json'), JSON.stringify(entry));
    const accounted = await ops('documents', 'account', '--document', reference, '--file', join(dir, 'entry.json'));
    expect(accounted.stdout.accounting_entry).toMatchObject({ is_crossed: true, proposed_by_agent: false, lines: 2 });
    await expect.poll(() => hooks('document.accounted').length, { timeout: 30_000 }).toBe(1);
    const sent = (hooks('document.accounted')[0]!.json as { data: { accounting_entry: Record<string, any> } }).data
      .accounting_entry;
    expect(sent.is_crossed).toBe(true);
    expect(sent.journal_entry.erp_journal_entry_lines[0]).toMatchObject({
      source: 'purchase_order',
      debit_cents: 172000000,
      purchase_order_line_external_id: 'po-1-line-1',
    });
    // What the file leaves out is sent as null, [] or {}, as for a voucher the agent proposes.
    expect(keysOf(sent.journal_entry)).toEqual([...JOURNAL_ENTRY_KEYS, 'currency', 'exchange_rate'].sort());
    expect(sent.journal_entry).toMatchObject({ posting_date: null, description: null, erp_journal_entry_taxes: [] });
    for (const line of sent.journal_entry.erp_journal_entry_lines)
      expect(keysOf(line)).toEqual([...JOURNAL_LINE_KEYS, 'local_credit_cents', 'local_debit_cents'].sort());
    expect(sent.journal_entry.erp_journal_entry_lines[1]).toMatchObject({
      credit_cents: null,
      quantity: null,
      cost_centers: [],
      warehouses: [],
      taxes: [],
      metadata: {},
    });
    for (const line of sent.journal_entry.payment_lines)
      expect(keysOf(line)).toEqual([...PAYMENT_LINE_KEYS, 'local_amount_cents'].sort());
    expect(sent.journal_entry.payment_lines[0]).toMatchObject({
      book_account_code: null,
      cost_center_external_id: null,
    });
    expect(sent.registration_payload).toEqual(entry);
  });

  it('resolves the accounting step of the flow when the ERP registers the voucher', async () => {
    const members = [{ email: 'ana@example.co', name: 'Ana' }];
    const { company, apiKey } = await makeCompany(api.orm, {
      country: 'COL',
      features: ['workflow_api'],
      members,
      bookAccounts: true,
    });
    await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'document.accounted',
      '--url',
      `${receiver.url}/hooks`,
      '--secret',
      SECRET,
    );
    const dir = tempDir('ap-flow-');
    writeFileSync(
      join(dir, 'flow.json'),
      JSON.stringify({ steps: [{ action: 'document.accounting', actionable: false }] }),
    );
    await ops('flows', 'set', '--company', company.id, '--file', join(dir, 'flow.json'));
    // Accounted by the operator's command, not by the lifecycle the moment the step opens: the step is seen waiting.
    expect((await ops('accounting', 'settings', '--company', company.id, '--automatic', 'off')).code).toBe(0);
    const reference = await importInvoice(company.id);
    const current = async () =>
      await api.call('GET', `/public/api/v1/workflow-steps/current?entity_reference=${reference}`, { apiKey });
    await expect
      .poll(async () => (await current()).body?.step?.action, { timeout: 30_000 })
      .toBe('document.accounting');
    await ops('documents', 'account', '--document', reference);
    await expect.poll(async () => (await current()).status, { timeout: 30_000 }).toBe(204);
  });

  /** The company's documents as `GET /documents?fields=erp_document` lists them. */
  const erpDocumentsOf = async (apiKey: string) =>
    (await api.call('GET', '/public/api/v1/documents?fields=erp_document', { apiKey })).body.items as {
      reference: string;
      erp_document: any;
    }[];
  const registeredErpDocument = async (apiKey: string, reference: string) => {
    await expect
      .poll(
        async () =>
          (await erpDocumentsOf(apiKey)).find((document) => document.reference === reference)?.erp_document?.registered,
        { timeout: 30_000 },
      )
      .toBe(true);
    return (await erpDocumentsOf(apiKey)).find((document) => document.reference === reference)!.erp_document;
  };
  const accountedDelivery = async (companyId: string) =>
    (await deliveriesOf(companyId)).find((delivery: { event: string }) => delivery.event === 'document.accounted');

  it('retries a 5xx, then shows the ERP ids and the document in the ERP shape, with the catalog records it references', async () => {
    const { company, apiKey, reference } = await accountedCompany();
    const sync = async (catalog: string, items: unknown[]) =>
      expect(
        (
          await api.call('POST', `/api/v1/erp/${catalog}`, {
            headers: { authorization: `ApiKey ${apiKey}` },
            body: { items },
          })
        ).body,
      ).toEqual({ synced: items.length, errors: [] });
    await sync('book-accounts', [
      { external_id: 'BA-5195', code: '519595', name: 'Diversos', nature: 'debit' },
      { external_id: 'BA-2205', code: '220505', name: 'Proveedores nacionales', nature: 'credit' },
    ]);
    await sync('products', [{ external_id: 'P-1', code: 'SRV', name: 'Servicio de soporte', unit_code: '94' }]);
    await sync('cost-centers', [{ external_id: 'CC-1', code: '100', name: 'Operaciones' }]);
    await sync('taxes', [{ external_id: 'IVA16', code: '16', name: 'IVA 16%', type: 'iva', rate: '0.16' }]);
    await sync('vendors', [
      { external_id: 'V-1', name: 'Proveedor', identifier_type: 'NIT', identifier_number: '900123456' },
    ]);
    const dir = tempDir('ap-erp-shape-');
    const entry = {
      summary: { total_cents: 112_000 },
      journal_entry: {
        document_type_external_id: 'FC',
        vendor_external_id: 'V-1',
        posting_date: '2026-01-15',
        expiration_date: '2026-02-10',
        description: 'Soporte de enero',
        erp_journal_entry_lines: [
          {
            source: 'front',
            description: 'Soporte',
            book_account_external_id: 'BA-5195',
            debit_cents: 100_000,
            quantity: 2,
            unit_price_cents: 50_500,
            discount: 1_000,
            product_external_id: 'P-1',
            cost_centers: [
              { cost_center_external_id: 'CC-1', percentage: 60 },
              { cost_center_external_id: 'CC-UNSYNCED', percentage: 40 },
            ],
            taxes: [{ tax_external_id: 'IVA16', base_cents: 100_000, amount_cents: 16_000, type: 'iva' }],
          },
          { source: 'front', description: 'IVA 16%', book_account_external_id: 'BA-UNSYNCED', debit_cents: 16_000 },
          { source: 'front', description: 'Retención', book_account_external_id: 'BA-2205', credit_cents: 4_000 },
        ],
        payment_lines: [
          { book_account_external_id: 'BA-2205', amount_cents: 56_000, due_date: '2026-02-10', quota_number: 1 },
          { book_account_external_id: 'BA-2205', amount_cents: 56_000, due_date: '2026-03-10', quota_number: 2 },
        ],
      },
    };
    writeFileSync(join(dir, 'entry.json'), JSON.stringify(entry));
    receiver.behave('fail', { times: 1 });
    expect((await ops('documents', 'account', '--document', reference, '--file', join(dir, 'entry.json'))).code).toBe(
      0,
    );

    const shown = await registeredErpDocument(apiKey, reference);
    expect(
      (await accountedDelivery(company.id)).attempts.map((attempt: { status_code: number }) => attempt.status_code),
    ).toEqual([500, 200]);
    const voucher = receiver.registered.get(reference)!;
    expect(voucher.invoice_reference).toEqual(expect.any(String));
    expect(shown).toMatchObject({
      registered: true,
      erp_invoice_id: voucher.erp_invoice_id,
      invoice_reference: voucher.invoice_reference,
    });
    const data = ErpDocumentData.parse(shown.data);
    expect(data).toMatchObject({
      document_id: reference,
      document_number: 'SETP990000008',
      external_reference: voucher.erp_invoice_id,
      document_reference: voucher.invoice_reference,
      document_type_id: 'FC',
      origin: 'direct',
      status: 'posted',
      vendor_id: 'V-1',
      due_date: '2026-03-10',
      expiration_date: '2026-02-10',
      accounting_date: '2026-01-15',
      observation: 'Soporte de enero',
      erp_journal: { id: 'FC' },
      erp_vendor: { id: 'V-1', name: 'Proveedor', identifier_type: 'NIT', identifier_number: '900123456', email: null },
    });
    expect(data.items).toEqual([
      {
        description: 'Soporte',
        product_id: 'P-1',
        quantity: 2,
        unit_price: 505,
        discount: 10,
        amount_total: 1_000,
        taxes: [{ id: 'IVA16', base: 1_000 }],
        cost_centers: [
          { id: 'CC-1', value: 60 },
          { id: 'CC-UNSYNCED', value: 40 },
        ],
      },
    ]);
    expect(data.summary).toEqual({
      subtotal: 1_000,
      gross_total: 1_160,
      net_total: 1_120,
      discount: 10,
      iva_8: 0,
      iva_16: 160,
    });
    expect(data.payment_lines).toEqual([
      { amount: 560, local_amount: 560, due_date: '2026-02-10', book_account_id: 'BA-2205' },
      { amount: 560, local_amount: 560, due_date: '2026-03-10', book_account_id: 'BA-2205' },
    ]);
    expect(data).toMatchObject({ currency: 'COP', exchange_rate: null });
    const [item, tax, withholding] = data.erp_journal_entry_lines;
    expect(item).toMatchObject({
      debit_cents: '100000',
      credit_cents: null,
      quantity: 2,
      book_account: { id: 'BA-5195', code: '519595', name: 'Diversos', nature: 'debit' },
      product: { id: 'P-1', code: 'SRV', name: 'Servicio de soporte', unit_code: '94' },
      cost_centers: [
        { id: 'CC-1', percentage: 60, cost_center: { id: 'CC-1', code: '100', name: 'Operaciones' } },
        { id: 'CC-UNSYNCED', percentage: 40, cost_center: null },
      ],
      taxes: [
        {
          id: 'IVA16',
          base_cents: 100_000,
          amount_cents: 16_000,
          tax: { id: 'IVA16', type: 'iva', rate: 0.16, is_withholding: false },
        },
      ],
    });
    expect(tax).toMatchObject({
      debit_cents: '16000',
      credit_cents: null,
      book_account_id: 'BA-UNSYNCED',
      book_account: null,
      product: null,
    });
    expect(withholding).toMatchObject({
      debit_cents: null,
      credit_cents: '4000',
      local_debit_cents: null,
      local_credit_cents: '4000',
      book_account: { id: 'BA-2205' },
    });
  });

  it("retries a 200 without erp_invoice_id (the simulator's missing-id mode), then shows the ids of the registration", async () => {
    const { company, apiKey, reference } = await accountedCompany();
    receiver.behave('missing-id', { times: 1 });
    await ops('documents', 'account', '--document', reference);
    const shown = await registeredErpDocument(apiKey, reference);
    const [first, second] = (await accountedDelivery(company.id)).attempts;
    expect(first).toMatchObject({ status_code: 200, error: 'The answer has no erp_invoice_id' });
    expect(second).toMatchObject({ status_code: 200, error: null });
    expect(hooks('document.accounted')[0]!.answer?.body).not.toContain('erp_invoice_id');
    expect(receiver.registered.get(reference)).toMatchObject({ times: 2 });
    expect(shown).toMatchObject({
      erp_invoice_id: receiver.registered.get(reference)!.erp_invoice_id,
      data: { external_reference: receiver.registered.get(reference)!.erp_invoice_id },
    });
  });

  it('retries a 422 that is not the receiver-error shape and ids it cannot store, then registers a 300-character id', async () => {
    const longId = `ERP-${'7'.repeat(296)}`;
    const scripted = await startScriptedReceiver([
      textReply(422, 'Unprocessable'),
      jsonReply(422, { error: 'period closed' }),
      {
        status: 200,
        contentType: 'application/json',
        body: '{"erp_invoice_id":"ERP-\\u0000-1","invoice_reference":null}',
      },
      jsonReply(200, { erp_invoice_id: 42, invoice_reference: null }),
      jsonReply(200, { erp_invoice_id: '', invoice_reference: null }),
      jsonReply(200, { erp_invoice_id: longId, invoice_reference: null }),
    ]);
    try {
      const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
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
            `${scripted.url}/hooks`,
            '--secret',
            SECRET,
            '--retries',
            '6',
          )
        ).code,
      ).toBe(0);
      const reference = await importInvoice(company.id);
      await ops('documents', 'account', '--document', reference);
      const shown = await registeredErpDocument(apiKey, reference);
      expect(shown).toMatchObject({
        registered: true,
        erp_invoice_id: longId,
        invoice_reference: null,
        data: { external_reference: longId, document_reference: null },
      });
      expect(ErpDocumentData.safeParse(shown.data).success).toBe(true);
      const attempts = (await accountedDelivery(company.id)).attempts as {
        status_code: number;
        error: string | null;
      }[];
      expect(attempts.map((attempt) => [attempt.status_code, attempt.error])).toEqual([
        [422, 'HTTP 422 with an answer that is not JSON'],
        [422, 'The 422 answer is not { error: { code, message } }'],
        [200, 'erp_invoice_id is not a string without U+0000'],
        [200, 'erp_invoice_id is not a string without U+0000'],
        [200, 'The answer has no erp_invoice_id'],
        [200, null],
      ]);
      expect(scripted.received).toHaveLength(6);
    } finally {
      await scripted.stop();
    }
  });
});
