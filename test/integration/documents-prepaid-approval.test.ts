import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { companyEm } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { replaceOnce } from '../unit/fiscal/fixtures.ts';

// What approval owes on an invoice paid in advance: `ops documents import`, POST …/approve, GET /documents/{reference}.

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const DIAN_INVOICE = readFileSync(join(FIXTURES, 'dian/stenfrank-invoice_unsigned_dian_v2.xml'), 'utf8');
// The fixture's total, 2023060.00 COP.
const TOTAL = '2023060.00';

let api: TestApi;
const dir = tempDir('ap-prepaid-approval-');
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** The invoice with `prepaid` paid in advance, PayableAmount already net of it (UBL's convention). */
function prepaidInvoice(name: string, prepaid: string, payable: string): string {
  const xml = replaceOnce(
    DIAN_INVOICE,
    `<cbc:PayableAmount currencyID="COP">${TOTAL}</cbc:PayableAmount>`,
    `<cbc:PrepaidAmount currencyID="COP">${prepaid}</cbc:PrepaidAmount><cbc:PayableAmount currencyID="COP">${payable}</cbc:PayableAmount>`,
  );
  const path = join(dir, name);
  writeFileSync(path, xml);
  return path;
}

async function imported(companyId: string, file: string): Promise<string> {
  const run = await ops('documents', 'import', '--company', companyId, file);
  expect(run.stdout.errors).toEqual([]);
  return run.stdout.documents[0].reference as string;
}

describe('approving an invoice paid in advance', () => {
  it('generates no payable for an invoice prepaid in full, and makes it paid for good', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const params = { reference: await imported(company.id, prepaidInvoice('full.xml', TOTAL, '0.00')) };
    const sdk = api.sdk(apiKey);
    expect(expectStatus(await sdk.getDocument({ params }), 200)).toMatchObject({
      amount: 2_023_060,
      prepaid: { amount: 2_023_060, convention: 'payable_net_of_prepaid' },
      payment_status: 'pending',
    });

    const approved = expectStatus(await sdk.approveDocument({ params }), 200);
    expect(approved).toMatchObject({ approval_status: 'approved', payment_status: 'paid', payables: [] });
    // Approving again changes nothing: still no payable, still paid.
    expectStatus(await sdk.approveDocument({ params, body: { erp_document_reference: 'ERP-7' } }), 200);
    const shown = expectStatus(await sdk.getDocument({ params }), 200);
    expect(shown).toMatchObject({ approval_status: 'approved', payment_status: 'paid', payables: [], payments: [] });
    expect(await companyEm(api.orm, company.id).count(Payable, { document: params.reference })).toBe(0);
    const settled = shown.logs.filter((log) => log.metadata.change === 'payment_status');
    expect(settled).toEqual([
      expect.objectContaining({
        event: 'document.updated',
        metadata: { change: 'payment_status', payment_status: 'paid', reason: 'nothing_left_to_pay' },
      }),
    ]);
    const listed = await api.call('GET', '/public/api/v1/documents?payment_status=paid', { apiKey });
    expect(listed.body.items.map((item: { reference: string }) => item.reference)).toEqual([params.reference]);
  });

  it('owes exactly what is left on an invoice partly prepaid', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const params = { reference: await imported(company.id, prepaidInvoice('part.xml', '500000.00', '1523060.00')) };
    const sdk = api.sdk(apiKey);

    const approved = expectStatus(await sdk.approveDocument({ params }), 200);
    expect(approved).toMatchObject({
      amount: 2_023_060,
      prepaid: { amount: 500_000, convention: 'payable_net_of_prepaid' },
      approval_status: 'approved',
      payment_status: 'pending',
    });
    expect(approved.payables.map((payable) => [payable.amount, payable.balance, payable.status])).toEqual([
      [1_523_060, 1_523_060, 'pending'],
    ]);
    const shown = expectStatus(await sdk.getDocument({ params }), 200);
    expect(shown.payables.map((payable) => payable.amount)).toEqual([1_523_060]);
    expect(shown.logs.some((log) => log.metadata.change === 'payment_status')).toBe(false);
  });
});
