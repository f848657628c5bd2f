// An advance the ERP crosses against an invoice counts as paid on it once the ERP registers the voucher: the invoice
// is partly paid, its payable shows what is left, and nothing can pay more than that, not even two payments at once.
import { join } from 'node:path';
import { expectStatus, type CreatePayment, type Payment } from '@accounts-payable/client';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { todayIn } from '../../services/payments/schedule.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { seedBankAccount } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const DIAN_INVOICE = join(
  new URL('../fixtures/', import.meta.url).pathname,
  'dian/stenfrank-invoice_unsigned_dian_v2.xml',
);
const SECRET = 'whsec-advances-0123456789';

let api: TestApi;
let receiver: ErpReceiver;
beforeAll(async () => {
  api = await startTestApi({ config: { paymentPollIntervalMs: 100 } });
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(async () => {
  // Every webhook the receiver got has the shape the OpenAPI document publishes.
  expect(expectPublishedShapes(receiver.received)).toBeGreaterThan(0);
  await receiver.stop();
  await api.close();
});

const yesterday = () => {
  const date = new Date(`${todayIn('COL')}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() - 1);
  return date.toISOString().slice(0, 10);
};

describe('an advance crossed on an invoice', () => {
  it('counts as paid once the ERP registers it, and nothing pays more than what is left', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
    const sdk = api.sdk(apiKey);
    await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
    const imported = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    const reference = imported.stdout.documents[0].reference as string;
    const invoice = expectStatus(await sdk.getDocument({ params: { reference } }), 200);
    const beneficiary = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, {
      id: invoice.beneficiary!.reference,
    });
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: `4${process.pid}01` });

    // The supplier is paid an advance of 500,000.00 before its invoice of 2,023,060.00 is approved.
    const pay = (body: CreatePayment['request']['body']) => sdk.createPayment({ body });
    const advance = expectStatus(
      await pay({
        beneficiary_reference: beneficiary.id,
        amount: 500_000,
        amount_currency: 'COP',
        payable_payload: { expiration_date: yesterday(), type: 'advance' },
      }),
      201,
    );
    let paid: Payment | undefined;
    await expect
      .poll(
        async () =>
          (paid = expectStatus(await sdk.getPayment({ params: { reference: advance.reference } }), 200)).status,
        {
          timeout: 30_000,
        },
      )
      .toBe('processed');
    expect(paid!.advance_balance).toMatchObject({ outstanding_amount: 500_000 });

    expectStatus(await sdk.approveDocument({ params: { reference }, body: {} }), 200);
    await expect
      .poll(
        async () => expectStatus(await sdk.getDocument({ params: { reference } }), 200).accounting?.registration_state,
        {
          timeout: 30_000,
        },
      )
      .toBe('registered');
    const [hook] = receiver.received.filter((request) => (request.json as any).data?.reference === reference);
    expect((hook!.json as any).data.accounting_entry.advance_crossings).toEqual([
      expect.objectContaining({ reference: advance.reference, amount_cents: 500_000_00, outstanding_amount_cents: 0 }),
    ]);

    await expect
      .poll(async () => expectStatus(await sdk.getDocument({ params: { reference } }), 200).payment_status)
      .toBe('partial');
    const document = expectStatus(await sdk.getDocument({ params: { reference } }), 200);
    expect(document.payables).toEqual([expect.objectContaining({ status: 'partial', balance: 1_523_060 })]);
    expect(
      expectStatus(await sdk.getPayment({ params: { reference: advance.reference } }), 200).advance_balance,
    ).toMatchObject({ outstanding_amount: 0 });

    // More than what is left is refused; of two payments of all that is left, sent at once, exactly one goes.
    const payable = document.payables[0]!.reference;
    const tooMuch = await pay({ payable_reference: payable, amount: 1_523_060.01, amount_currency: 'COP' });
    expect(tooMuch).toMatchObject({ status: 422, body: { code: 'amount_exceeds_balance' } });
    const racing = await Promise.all(
      [1, 2].map(() => pay({ payable_reference: payable, amount: 1_523_060, amount_currency: 'COP' })),
    );
    expect(racing.map((answer) => answer.status).sort((a, b) => a - b)).toEqual([201, 422]);
    expect(racing.find((answer) => answer.status === 422)!.body).toMatchObject({ code: 'amount_exceeds_balance' });
    const settled = racing.find((answer) => answer.status === 201)!.body as { reference: string };
    await expect
      .poll(async () => expectStatus(await sdk.getPayment({ params: { reference: settled.reference } }), 200).status, {
        timeout: 30_000,
      })
      .toBe('processed');
    await expect
      .poll(async () => expectStatus(await sdk.getDocument({ params: { reference } }), 200).payment_status)
      .toBe('paid');
    expect(expectStatus(await sdk.getDocument({ params: { reference } }), 200).payables).toEqual([
      expect.objectContaining({ status: 'paid', balance: 0 }),
    ]);
  });
});
