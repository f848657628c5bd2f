import { expectStatus } from '@accounts-payable/client';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { reschedulePayment } from '../../services/payments/reschedule-payment.ts';
import { companyEm } from '../../db/orm.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { seedBeneficiary, seedPayable, seedPayment } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const SECRET = 'whsec_reschedule_7c21';
let api: TestApi;
let receiver: ErpReceiver;
let company: Company;
let apiKey: string;

beforeAll(async () => {
  // The CLI reads its settings from the environment: validations it starts check back quickly in the suite.
  process.env.BANK_VALIDATION_POLL_INTERVAL_MS = '100';
  api = await startTestApi();
  receiver = await startErpReceiver({ secret: SECRET });
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
});
afterAll(async () => {
  // Every webhook the receiver got has the shape the OpenAPI document publishes.
  expect(expectPublishedShapes(receiver.received)).toBeGreaterThan(0);
  await receiver.stop();
  await api.close();
});

/** A manual payment of a beneficiary without a bank account: it stays pending, waiting for a validated one. */
async function pendingPayment(name: string, expirationDate: string): Promise<{ id: string }> {
  const beneficiary = await seedBeneficiary(api.orm, company, { name });
  const created = expectStatus(
    await api.sdk(apiKey).createPayment({
      body: {
        beneficiary_reference: beneficiary.id,
        amount: 90_000,
        amount_currency: 'COP',
        payable_payload: { expiration_date: expirationDate },
      },
    }),
    201,
  );
  return { id: created.reference };
}

const rescheduled = () =>
  receiver.received.filter((request) => request.event === 'payment.rescheduled' && request.path === '/erp');

describe('ops payments reschedule', () => {
  it("moves the payable's due date and notifies the subscribers of payment.rescheduled, signed", async () => {
    const subscribed = await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'payment.rescheduled',
      '--url',
      `${receiver.url}/erp`,
      '--secret',
      SECRET,
    );
    expect(subscribed.code).toBe(0);
    // Another company's subscriber must hear nothing of this company's payments.
    const other = await makeCompany(api.orm, { country: 'COL' });
    await ops(
      'webhooks',
      'add',
      '--company',
      other.company.id,
      '--event',
      'payment.rescheduled',
      '--url',
      `${receiver.url}/other`,
      '--secret',
      SECRET,
    );

    const payment = await pendingPayment('Servicios Integrales S.A.S.', '2026-11-30');

    const result = await ops('payments', 'reschedule', '--payment', payment.id, '--due-date', '2026-12-24');
    expect(result.code).toBe(0);
    expect(result.stdout).toEqual({ payment: payment.id, previous_due_date: '2026-11-30', new_due_date: '2026-12-24' });

    await expect.poll(() => rescheduled().length, { timeout: 30_000, interval: 100 }).toBe(1);
    const [delivery] = rescheduled();
    expect(delivery!.signatureValid).toBe(true);
    expect(delivery!.headers['x-service-event']).toBe('payment.rescheduled');
    expect(delivery!.json).toMatchObject({
      event: 'payment.rescheduled',
      payment_id: payment.id,
      previous_due_date: '2026-11-30',
      new_due_date: '2026-12-24',
    });
    expect(receiver.received.filter((request) => request.path === '/other')).toEqual([]);

    const shown = expectStatus(await api.sdk(apiKey).getPayment({ params: { reference: payment.id } }), 200);
    expect(shown.payable.expiration_date).toBe('2026-12-24');
    const listed = expectStatus(
      await api
        .sdk(apiKey)
        .listPayments({ query: { expiration_date_from: '2026-12-24', expiration_date_to: '2026-12-24' } }),
      200,
    );
    expect(listed.items.map((item) => item.reference)).toEqual([payment.id]);

    // The same date again changes nothing and notifies no one.
    const again = await ops('payments', 'reschedule', '--payment', payment.id, '--due-date', '2026-12-24');
    expect(again.stdout).toEqual({ payment: payment.id, previous_due_date: '2026-12-24', new_due_date: '2026-12-24' });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(rescheduled()).toHaveLength(1);
  });

  it('sends the notification of a reschedule whose run stopped between its commit and the delivery, when run again', async () => {
    const payment = await pendingPayment('Interrumpido S.A.S.', '2026-12-01');
    // The change and its delivery committed; the process died before starting it.
    const committed = await reschedulePayment(
      { orm: api.orm, paymentDayMs: null },
      { companyId: company.id, paymentId: payment.id, dueDate: '2027-01-15' },
    );
    expect(committed.deliveries).toHaveLength(1);

    const again = await ops('payments', 'reschedule', '--payment', payment.id, '--due-date', '2027-01-15');
    expect(again.stdout).toEqual({ payment: payment.id, previous_due_date: '2027-01-15', new_due_date: '2027-01-15' });
    const ofThisPayment = () =>
      rescheduled().filter((request) => (request.json as { payment_id?: string }).payment_id === payment.id);
    await expect.poll(() => ofThisPayment().length, { timeout: 30_000, interval: 100 }).toBe(1);
    expect(ofThisPayment()[0]!.json).toMatchObject({ previous_due_date: '2026-12-01', new_due_date: '2027-01-15' });
  });

  it('refuses a processed payment, an unknown one and a malformed date', async () => {
    const beneficiary = await seedBeneficiary(api.orm, company, { name: 'Ya Pagado Ltda' });
    const paid = await seedPayment(api.orm, company, {
      payable: await seedPayable(api.orm, company, { beneficiary, amountCents: 10_00n }),
      amountCents: 10_00n,
      status: 'processed',
      paidAt: new Date(),
    });
    const final = await ops('payments', 'reschedule', '--payment', paid.id, '--due-date', '2026-12-24');
    expect(final.code).toBe(1);
    expect(final.stderr.error.code).toBe('payment_final');
    const unknown = await ops(
      'payments',
      'reschedule',
      '--payment',
      '00000000-0000-4000-8000-000000000000',
      '--due-date',
      '2026-12-24',
    );
    expect(unknown.stderr.error.code).toBe('payment_not_found');
    const badDate = await ops('payments', 'reschedule', '--payment', paid.id, '--due-date', '24/12/2026');
    expect(badDate.code).toBe(2);
    expect(badDate.stderr.error).toEqual({
      code: 'invalid_date',
      message: '--due-date must be a calendar date, YYYY-MM-DD (got 24/12/2026)',
    });
  });
});

describe('ops bank-accounts add', () => {
  it('adds an account for the beneficiary, pending, and starts its validation', async () => {
    const beneficiary = await seedBeneficiary(api.orm, company, { name: 'Agrícola San Juan S.A.S.' });
    const number = `8${String(process.pid).padStart(9, '0').slice(-9)}`;
    const added = await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      beneficiary.id,
      '--bank',
      bankReference('COL', '1007'),
      '--account-number',
      number,
      '--account-type',
      'savings',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toEqual({
      reference: expect.any(String),
      beneficiary: beneficiary.id,
      bank: { reference: bankReference('COL', '1007'), name: 'Bancolombia' },
      account_number: number,
      account_type: 'savings',
      validation_status: 'pending',
    });
    await expect
      .poll(
        async () =>
          (await companyEm(api.orm, company.id).findOneOrFail(BeneficiaryBankAccount, { id: added.stdout.reference }))
            .validationStatus,
        { timeout: 30_000, interval: 100 },
      )
      .toBe('validated');
    const account = await companyEm(api.orm, company.id).findOneOrFail(BeneficiaryBankAccount, {
      id: added.stdout.reference,
    });
    expect(account).toMatchObject({
      accountRecipientName: 'Agrícola San Juan S.A.S.',
      accountRecipientDocumentType: 'NIT',
      accountRecipientDocumentNumber: beneficiary.identifierNumber,
      validationAttempt: 1,
    });
    const listed = expectStatus(await api.sdk(apiKey).listBeneficiaries({ query: { search: 'san juan' } }), 200);
    expect(listed.items[0]?.bank_accounts).toEqual([
      {
        reference: added.stdout.reference,
        bank_reference: bankReference('COL', '1007'),
        bank_name: 'Bancolombia',
        account_number: number,
      },
    ]);

    const twice = await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      beneficiary.id,
      '--bank',
      bankReference('COL', '1007'),
      '--account-number',
      number,
      '--account-type',
      'checking',
    );
    expect(twice.stderr.error.code).toBe('bank_account_exists');
  });

  it('refuses a malformed number, a bank of another country, an unknown beneficiary and an unknown type', async () => {
    const beneficiary = await seedBeneficiary(api.orm, company, { name: 'Errores S.A.S.' });
    const short = await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      beneficiary.id,
      '--bank',
      bankReference('COL', '1007'),
      '--account-number',
      '123',
      '--account-type',
      'savings',
    );
    expect(short.code).toBe(1);
    expect(short.stderr.error).toEqual({ code: 'invalid_account_number', message: 'Must have 6 to 20 digits' });
    const mexican = await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      beneficiary.id,
      '--bank',
      bankReference('MEX', '012'),
      '--account-number',
      '123456789',
      '--account-type',
      'savings',
    );
    expect(mexican.stderr.error.code).toBe('invalid_bank_reference');
    const unknown = await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      '00000000-0000-4000-8000-000000000000',
      '--bank',
      bankReference('COL', '1007'),
      '--account-number',
      '123456789',
      '--account-type',
      'savings',
    );
    expect(unknown.stderr.error.code).toBe('beneficiary_not_found');
    const type = await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      beneficiary.id,
      '--bank',
      bankReference('COL', '1007'),
      '--account-number',
      '123456789',
      '--account-type',
      'current',
    );
    expect(type.code).toBe(2);
  });
});
