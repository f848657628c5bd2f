// The customer's side of a refused voucher hand-off: the ERP's 422 shows on the document (`accounting`), and the
// integrator hands the same voucher over again through the API, which the ERP then registers once.
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

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

async function companyWithInvoice(subscribed: boolean) {
  const made = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
  if (subscribed) await subscribeWebhook(made.company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
  const imported = await ops('documents', 'import', '--company', made.company.id, DIAN_INVOICE);
  return { ...made, reference: imported.stdout.documents[0].reference as string };
}

const accountingOf = async (apiKey: string, reference: string) =>
  expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200).accounting;
const retry = (apiKey: string, reference: string) => api.sdk(apiKey).retryDocumentAccounting({ params: { reference } });

describe('POST /documents/{reference}/accounting/retry', () => {
  it("shows the ERP's 422 on the document, and hands the same voucher over again once the ERP can take it", async () => {
    const { apiKey, reference } = await companyWithInvoice(true);
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

    expect((await ops('documents', 'account', '--document', reference)).code).toBe(0);
    expect(await accountingOf(apiKey, reference)).toMatchObject({ registration_state: 'pending', retry_allowed: true });
    expect(expectStatus(await retry(apiKey, reference), 409).code).toBe('no_receiver');

    const other = await makeCompany(api.orm, { country: 'COL' });
    expect(expectStatus(await retry(other.apiKey, reference), 404).code).toBe('document_not_found');
  });
});
