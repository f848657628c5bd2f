import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErpDocumentData } from '../../read-models/erp-document-schema.ts';
import { convertCents } from '../../services/accounting/local-amounts.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { replaceOnce } from '../unit/fiscal/fixtures.ts';

// A dollar invoice with its rate to pesos, accounted and handed over through `document.accounted`: the voucher
// carries its amounts in COP, balanced, and so does the document as the ERP registered it.

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const DIAN_INVOICE = readFileSync(join(FIXTURES, 'dian/stenfrank-invoice_unsigned_dian_v2.xml'), 'utf8');
const SECRET = 'whsec-local-amounts-0123456789';
const RATE = '3917.4567';
const EXCHANGE_RATE = { rate: 3917.4567, source_currency: 'USD', target_currency: 'COP', date: '2019-06-12' };

let api: TestApi;
let receiver: ErpReceiver;
const dir = tempDir('ap-local-amounts-');
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

/** The fixture in dollars, stating its rate to pesos. */
function dollarInvoice(): string {
  const dollars = replaceOnce(
    DIAN_INVOICE.replaceAll('currencyID="COP"', 'currencyID="USD"'),
    '<cbc:DocumentCurrencyCode>COP</cbc:DocumentCurrencyCode>',
    '<cbc:DocumentCurrencyCode>USD</cbc:DocumentCurrencyCode>',
  );
  const xml = replaceOnce(
    dollars,
    '<cac:PaymentMeans>',
    '<cac:PaymentExchangeRate>' +
      '<cbc:SourceCurrencyCode>USD</cbc:SourceCurrencyCode><cbc:SourceCurrencyBaseRate>1.00</cbc:SourceCurrencyBaseRate>' +
      '<cbc:TargetCurrencyCode>COP</cbc:TargetCurrencyCode><cbc:TargetCurrencyBaseRate>1.00</cbc:TargetCurrencyBaseRate>' +
      `<cbc:CalculationRate>${RATE}</cbc:CalculationRate><cbc:Date>2019-06-12</cbc:Date></cac:PaymentExchangeRate><cac:PaymentMeans>`,
  );
  const path = join(dir, `usd-${Date.now()}.xml`);
  writeFileSync(path, xml);
  return path;
}

async function dollarDocument() {
  const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
  await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
  const imported = await ops('documents', 'import', '--company', company.id, dollarInvoice());
  expect(imported.stdout.errors).toEqual([]);
  return { apiKey, reference: imported.stdout.documents[0].reference as string };
}

interface Line {
  debit_cents: number | null;
  credit_cents: number | null;
  local_debit_cents: number | null;
  local_credit_cents: number | null;
}
interface PaymentLine {
  amount_cents: number;
  local_amount_cents: number | null;
}

/** The voucher `document.accounted` delivered for the document. */
async function deliveredJournal(reference: string) {
  await expect.poll(() => receiver.registered.get(reference)?.times ?? 0, { timeout: 30_000 }).toBe(1);
  const request = receiver.received.find(
    (received) =>
      received.event === 'document.accounted' &&
      (received.json as { data: { reference: string } }).data.reference === reference,
  );
  return (request!.json as { data: { accounting_entry: { journal_entry: Record<string, unknown> } } }).data
    .accounting_entry.journal_entry as Record<string, unknown> & { erp_journal_entry_lines: Line[] } & {
    payment_lines: PaymentLine[];
  };
}

const totals = (lines: Line[], payments: PaymentLine[], local: boolean) => ({
  debits: lines.reduce((sum, line) => sum + ((local ? line.local_debit_cents : line.debit_cents) ?? 0), 0),
  credits:
    lines.reduce((sum, line) => sum + ((local ? line.local_credit_cents : line.credit_cents) ?? 0), 0) +
    payments.reduce((sum, line) => sum + ((local ? line.local_amount_cents : line.amount_cents) ?? 0), 0),
});

describe('document.accounted of a dollar invoice with a rate to pesos', () => {
  it("gives the agent's voucher its currency, its rate and each line in pesos", async () => {
    const { reference } = await dollarDocument();
    expect((await ops('documents', 'account', '--document', reference)).code).toBe(0);
    const journal = await deliveredJournal(reference);
    expect(journal).toMatchObject({ currency: 'USD', exchange_rate: EXCHANGE_RATE });
    const lines = journal.erp_journal_entry_lines;
    expect(lines.length).toBeGreaterThan(1);
    // Each line converted half up; at most one line carries a cent or so of rounding on top.
    const off = [
      ...lines.map((line) =>
        line.debit_cents === null
          ? line.local_credit_cents! - Number(convertCents(BigInt(line.credit_cents!), RATE))
          : line.local_debit_cents! - Number(convertCents(BigInt(line.debit_cents), RATE)),
      ),
      ...journal.payment_lines.map(
        (line) => line.local_amount_cents! - Number(convertCents(BigInt(line.amount_cents), RATE)),
      ),
    ].filter((difference) => difference !== 0);
    expect(off.length).toBeLessThanOrEqual(1);
    expect(Math.abs(off[0] ?? 0)).toBeLessThanOrEqual(lines.length);
    for (const line of lines) expect(line.debit_cents === null).toBe(line.local_debit_cents === null);
    // Local debits − local credits is the voucher's own difference, converted.
    const own = totals(lines, journal.payment_lines, false);
    const local = totals(lines, journal.payment_lines, true);
    expect(local.debits - local.credits).toBe(Number(convertCents(BigInt(own.debits - own.credits), RATE)));
  });

  it('balances a balanced voucher in pesos, putting the lost cent on the largest debit, and registers it so', async () => {
    const { apiKey, reference } = await dollarDocument();
    // USD 1190.00: lines that round, one by one, to a cent more of credits than of debits.
    const entry = {
      journal_entry: {
        erp_journal_entry_lines: [
          { source: 'front', description: 'A', book_account_external_id: 'BA-5195', debit_cents: 33_333 },
          { source: 'front', description: 'B', book_account_external_id: 'BA-5195', debit_cents: 33_333 },
          { source: 'front', description: 'C', book_account_external_id: 'BA-5195', debit_cents: 33_334 },
          { source: 'front', description: 'IVA', book_account_external_id: 'BA-2408', debit_cents: 19_000 },
          { source: 'front', description: 'Retención', book_account_external_id: 'BA-2365', credit_cents: 2_500 },
        ],
        payment_lines: [
          { book_account_external_id: 'BA-2205', amount_cents: 58_250, due_date: '2026-02-10', quota_number: 1 },
          { book_account_external_id: 'BA-2205', amount_cents: 58_250, due_date: '2026-03-10', quota_number: 2 },
        ],
      },
    };
    const file = join(dir, `entry-${Date.now()}.json`);
    writeFileSync(file, JSON.stringify(entry));
    expect((await ops('documents', 'account', '--document', reference, '--file', file)).code).toBe(0);

    const journal = await deliveredJournal(reference);
    expect(journal).toMatchObject({ currency: 'USD', exchange_rate: EXCHANGE_RATE });
    expect(journal.erp_journal_entry_lines.map((line) => [line.local_debit_cents, line.local_credit_cents])).toEqual([
      [130_580_584, null],
      [130_580_584, null],
      [130_584_503, null], // 130584502 rounded, plus the cent the debits lacked
      [74_431_677, null],
      [null, 9_793_642],
    ]);
    expect(journal.payment_lines.map((line) => line.local_amount_cents)).toEqual([228_191_853, 228_191_853]);
    expect(totals(journal.erp_journal_entry_lines, journal.payment_lines, true)).toEqual({
      debits: 466_177_348,
      credits: 466_177_348,
    });

    // The document as the ERP registered it says the same, its cents as strings and its amounts as decimals.
    await expect
      .poll(
        async () =>
          (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body.erp_document?.registered,
        { timeout: 30_000 },
      )
      .toBe(true);
    const shown = (await api.call('GET', `/public/api/v1/documents/${reference}`, { apiKey })).body;
    expect(shown.exchange_rate).toEqual(EXCHANGE_RATE);
    const data = ErpDocumentData.parse(shown.erp_document.data);
    expect(data).toMatchObject({ currency: 'USD', exchange_rate: EXCHANGE_RATE });
    expect(data.erp_journal_entry_lines.map((line) => [line.local_debit_cents, line.local_credit_cents])).toEqual([
      ['130580584', null],
      ['130580584', null],
      ['130584503', null],
      ['74431677', null],
      [null, '9793642'],
    ]);
    expect(data.payment_lines.map((line) => [line.amount, line.local_amount])).toEqual([
      [582.5, 2_281_918.53],
      [582.5, 2_281_918.53],
    ]);
  });
});
