// Where a voucher stands in its hand-off to the ERP (`accounting`): the ERP's 422 shows on the document and the
// integrator hands the same voucher over again through the API, which the ERP then registers once; and a voucher the
// ERP catalog cannot map yet waits, naming what is missing, instead of being sent with made-up accounts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../platform/temp-dir.ts';
import { expectStatus } from '@accounts-payable/client';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany, STARTER_BOOK_ACCOUNTS } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { JOURNAL_LINE_KEYS, PAYMENT_LINE_KEYS, keysOf } from '../helpers/voucher-keys.ts';
import { flowInWords } from '../helpers/temporal-ui.ts';

const DIAN_INVOICE = join(
  new URL('../fixtures/', import.meta.url).pathname,
  'dian/stenfrank-invoice_unsigned_dian_v2.xml',
);
const SECRET = 'whsec-test-0123456789';

let api: TestApi;
let receiver: ErpReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(async () => {
  // Every webhook the receiver got has the shape the OpenAPI document publishes.
  expect(expectPublishedShapes(receiver.received)).toBeGreaterThan(0);
  await receiver.stop();
  await api.close();
});

async function companyWithInvoice(subscribed: boolean) {
  const made = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
  const subscription = subscribed
    ? await subscribeWebhook(made.company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET)
    : null;
  const imported = await ops('documents', 'import', '--company', made.company.id, DIAN_INVOICE);
  return { ...made, subscription, reference: imported.stdout.documents[0].reference as string };
}

const accountingOf = async (apiKey: string, reference: string) =>
  expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200).accounting;
const retry = (apiKey: string, reference: string) => api.sdk(apiKey).retryDocumentAccounting({ params: { reference } });

describe('POST /documents/{reference}/accounting/retry', () => {
  it("shows the ERP's 422 on the document, and hands the same voucher over again once the ERP can take it", async () => {
    const { apiKey, reference, subscription } = await companyWithInvoice(true);
    expect(await accountingOf(apiKey, reference)).toBeNull();
    receiver.behave('reject', { code: 'period_closed', message: 'El periodo contable está cerrado', times: 1 });
    expect((await ops('documents', 'account', '--document', reference)).code).toBe(0);

    await expect.poll(async () => (await accountingOf(apiKey, reference))?.registration_state).toBe('failed');
    const failed = await accountingOf(apiKey, reference);
    expect(failed).toEqual({
      reference: expect.any(String),
      status: 'posted',
      accounted_at: expect.any(String),
      registration_state: 'failed',
      missing_catalog_entries: [],
      failure: { code: 'period_closed', message: 'El periodo contable está cerrado' },
      retry_allowed: true,
    });
    // The Temporal UI says why the hand-off stopped, and what it waits for.
    // Visibility lists it a moment after it completes.
    const deliveries = async () => {
      const ids: string[] = [];
      for await (const execution of api.client.workflow.list({
        query: `WorkflowId STARTS_WITH 'webhook/${subscription}/'`,
      }))
        ids.push(execution.workflowId);
      return ids;
    };
    await expect.poll(deliveries).toHaveLength(1);
    const [delivery] = await deliveries();
    expect(await flowInWords(api.client, delivery!)).toEqual({
      summary: 'Webhook document.accounted',
      details:
        "The ERP answered 422: El periodo contable está cerrado; waiting for the customer's retry (POST /documents/{reference}/accounting/retry)",
    });

    const retried = expectStatus(await retry(apiKey, reference), 202);
    expect(retried).toMatchObject({ reference: failed!.reference, status: 'posted' });
    // The hand-off runs on its own: it may already be over when the answer is written.
    expect(['registering', 'registered']).toContain(retried.registration_state);

    await expect.poll(async () => (await accountingOf(apiKey, reference))?.registration_state).toBe('registered');
    expect(await accountingOf(apiKey, reference)).toMatchObject({ failure: null, retry_allowed: false });
    expect(receiver.registered.get(reference)?.times).toBe(1);
    const document = expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200);
    expect(document.erp_document).toMatchObject({ registered: true });

    expect(expectStatus(await retry(apiKey, reference), 409).code).toBe('already_registered');
    expect(receiver.registered.get(reference)?.times).toBe(1);
  });

  it("refuses a document not accounted, one without a receiver, and another company's document", async () => {
    const { apiKey, reference } = await companyWithInvoice(false);
    expect(expectStatus(await retry(apiKey, reference), 409).code).toBe('not_accounted');

    expect((await ops('documents', 'account', '--document', reference)).code, 'accounted').toBe(0);
    // No receiver: a retry would be refused, so it is not allowed, and the refused retry changes nothing.
    expect(await accountingOf(apiKey, reference)).toMatchObject({
      registration_state: 'pending',
      retry_allowed: false,
    });
    expect(expectStatus(await retry(apiKey, reference), 409).code).toBe('no_receiver');
    expect(await accountingOf(apiKey, reference)).toMatchObject({
      registration_state: 'pending',
      retry_allowed: false,
    });

    const other = await makeCompany(api.orm, { country: 'COL' });
    expect(expectStatus(await retry(other.apiKey, reference), 404).code).toBe('document_not_found');
  });
});

const syncBookAccounts = async (apiKey: string, items: readonly unknown[]) =>
  expect(
    (
      await api.call('POST', '/api/v1/erp/book-accounts', {
        headers: { authorization: `ApiKey ${apiKey}` },
        body: { items },
      })
    ).body,
  ).toEqual({
    synced: items.length,
    errors: [],
  });

describe('a voucher waiting for the ERP catalog', () => {
  it('names the missing book accounts, sends nothing, and is handed over, balanced, once the ERP syncs them', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
    await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
    const imported = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    const reference = imported.stdout.documents[0].reference as string;
    const accountingOf = async () =>
      expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200).accounting;

    // The supplier payable account is no longer active: the chart has no credit account for what is owed.
    await syncBookAccounts(apiKey, [{ ...STARTER_BOOK_ACCOUNTS[1], is_active: false }]);
    const accounted = await ops('documents', 'account', '--document', reference);
    expect(accounted.code).toBe(0);
    expect(accounted.stdout).toMatchObject({
      accounting_entry: { registration_state: 'awaiting_catalog', lines: 0 },
      deliveries: 0,
    });
    const waiting = await accountingOf();
    expect(waiting).toMatchObject({
      registration_state: 'awaiting_catalog',
      missing_catalog_entries: [
        { catalog: 'book_accounts', role: 'supplier_payable', description: expect.stringContaining('credit') },
      ],
      retry_allowed: false,
    });
    const retried = expectStatus(await api.sdk(apiKey).retryDocumentAccounting({ params: { reference } }), 409);
    expect(retried).toMatchObject({ code: 'awaiting_catalog', message: expect.stringContaining('supplier_payable') });
    expect(receiver.registered.get(reference)).toBeUndefined();

    // A sync of another catalog changes nothing; the book account that was missing lets the voucher through.
    expect(
      (
        await api.call('POST', '/api/v1/erp/cost-centers', {
          headers: { authorization: `ApiKey ${apiKey}` },
          body: { items: [{ external_id: 'CC-1', code: '1', name: 'Ops' }] },
        })
      ).status,
    ).toBe(200);
    expect((await accountingOf())?.registration_state).toBe('awaiting_catalog');
    await syncBookAccounts(apiKey, [STARTER_BOOK_ACCOUNTS[1]]);
    await expect.poll(async () => (await accountingOf())?.registration_state, { timeout: 30_000 }).toBe('registered');
    expect(await accountingOf()).toMatchObject({ reference: waiting!.reference, missing_catalog_entries: [] });
    expect(receiver.registered.get(reference)?.times).toBe(1);

    const [hook] = receiver.received.filter((request) => request.event === 'document.accounted');
    const journal = (hook!.json as any).data.accounting_entry.journal_entry;
    const accounts = new Set(STARTER_BOOK_ACCOUNTS.map((account) => account.external_id));
    for (const line of journal.erp_journal_entry_lines) {
      expect(keysOf(line)).toEqual(expect.arrayContaining(JOURNAL_LINE_KEYS));
      expect(accounts.has(line.book_account_external_id)).toBe(true);
    }
    for (const line of journal.payment_lines) {
      expect(keysOf(line)).toEqual(expect.arrayContaining(PAYMENT_LINE_KEYS));
      expect(line.book_account_external_id).toBe('BA-2205');
    }
    const debits = journal.erp_journal_entry_lines.reduce((sum: number, line: any) => sum + (line.debit_cents ?? 0), 0);
    const credits =
      journal.erp_journal_entry_lines.reduce((sum: number, line: any) => sum + (line.credit_cents ?? 0), 0) +
      journal.payment_lines.reduce((sum: number, line: any) => sum + line.amount_cents, 0);
    expect(debits).toBe(credits);
    expect(journal.payment_lines.reduce((sum: number, line: any) => sum + line.amount_cents, 0)).toBe(2_023_060_00);
  });

  it('sends an expense as the contract types it: `invoice`, with `is_expense`', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
    await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
    const created = await api.call('POST', '/public/api/v1/documents', {
      apiKey,
      body: {
        reimbursed_person: { name: 'Carlos Gómez', identifier_type: 'CC', identifier_number: '1020304999' },
        amount: 85_000,
        amount_currency: 'COP',
        issue_date: '2026-11-02',
      },
    });
    expect(created.status).toBe(201);
    const reference = created.body.reference as string;
    expect(created.body.type).toBe('expense');
    const dir = tempDir('ap-expense-entry-');
    writeFileSync(
      join(dir, 'entry.json'),
      JSON.stringify({
        journal_entry: {
          erp_journal_entry_lines: [
            { source: 'front', description: 'Taxi', book_account_external_id: 'BA-5195', debit_cents: 85_000_00 },
          ],
          payment_lines: [
            { book_account_external_id: 'BA-2205', amount_cents: 85_000_00, due_date: '2026-11-02', quota_number: 1 },
          ],
        },
      }),
    );
    const accounted = await ops('documents', 'account', '--document', reference, '--file', join(dir, 'entry.json'));
    expect(accounted.code).toBe(0);
    await expect.poll(() => receiver.registered.get(reference)?.times, { timeout: 30_000 }).toBe(1);
    const [hook] = receiver.received.filter(
      (request) => request.event === 'document.accounted' && (request.json as any).data.reference === reference,
    );
    expect((hook!.json as any).data).toMatchObject({ type: 'invoice', is_expense: true, amount: 85_000_00 });
  });
});
