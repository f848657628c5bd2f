// A voucher the ERP catalog cannot map yet is not sent with made-up accounts: it waits, naming what is missing, and is
// handed over once the ERP syncs the book accounts it needs.
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany, STARTER_BOOK_ACCOUNTS } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { JOURNAL_LINE_KEYS, PAYMENT_LINE_KEYS, keysOf } from '../helpers/voucher-keys.ts';

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
  await receiver.stop();
  await api.close();
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
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
    const imported = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    const reference = imported.stdout.documents[0].reference as string;
    const accountingOf = async () =>
      expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200).accounting;

    // Only the expense side is synced: the supplier payable account is missing.
    await syncBookAccounts(apiKey, [STARTER_BOOK_ACCOUNTS[0]]);
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
});
