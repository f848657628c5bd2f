// When money moves: a payment goes to the gateway only on its pay date and only to a validated bank account of its
// beneficiary; until then operators may reschedule it, cancel it or release it in a batch. The days ahead of a pay
// date are shortened through configuration (100 ms a day in the suite's worker), not mocked.
import { expectStatus, type Client, type CreatePayment, type Payment } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AccountingEntry } from '../../db/accounting/accounting-entry.entity.ts';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { PaymentBatch } from '../../db/payments/payment-batch.entity.ts';
import { createPaymentBatch } from '../../services/payments/batches.ts';
import { todayIn } from '../../services/payments/schedule.ts';
import { reschedulePaymentThroughProcess, startPaymentBatch } from '../../temporal/payments.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import {
  gatewayBulkTransfer,
  gatewayTransfers,
  seedBankAccount,
  seedBeneficiary,
  seedPayable,
  seedPayment,
  steerBankValidation,
  steerGateway,
} from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { flowInWords } from '../helpers/temporal-ui.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
let sdk: Client;
let accounts = 0;

beforeAll(async () => {
  // Validations the CLI starts check back quickly in the suite.
  process.env.BANK_VALIDATION_POLL_INTERVAL_MS = '100';
  api = await startTestApi({ config: { paymentPollIntervalMs: 100 } });
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  sdk = api.sdk(apiKey);
});
afterAll(() => api.close());

type NewPayment = CreatePayment['request']['body'];
const create = async (body: NewPayment) => expectStatus(await sdk.createPayment({ body }), 201);
const detail = async (reference: string) => expectStatus(await sdk.getPayment({ params: { reference } }), 200);

/**
 * A day in Bogotá, `offset` days from today. Days ahead of a pay date last 100 ms in the suite (`PAYMENT_DAY_MS`), so a
 * date that must not come during a test is thousands of days away: 3,000 is five minutes.
 */
function day(offset: number): string {
  const date = new Date(`${todayIn('COL')}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + offset);
  return date.toISOString().slice(0, 10);
}

/** Waits until the payment's detail passes `test`, and returns it. */
async function until(reference: string, test: (payment: Payment) => boolean): Promise<Payment> {
  let seen: Payment | undefined;
  await expect
    .poll(
      async () => {
        seen = await detail(reference);
        return test(seen);
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(true);
  return seen!;
}
const processed = (reference: string) => until(reference, (payment) => payment.status === 'processed');

/** An account number no other test uses, so that the validation service can be steered for it alone. */
const accountNumber = () => `3${String(process.pid).padStart(7, '0').slice(-7)}${String(++accounts).padStart(3, '0')}`;

async function supplier(name: string, options: { validated: boolean } = { validated: true }): Promise<Beneficiary> {
  const beneficiary = await seedBeneficiary(api.orm, company, { name });
  if (options.validated)
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: accountNumber() });
  return beneficiary;
}

const addAccount = (beneficiary: Beneficiary, number: string) =>
  ops(
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

describe('a payment whose beneficiary has no validated bank account', () => {
  it('waits, pending and saying why, and goes by itself once an account of the beneficiary is validated', async () => {
    const beneficiary = await supplier('Distribuciones Sin Cuenta S.A.S.', { validated: false });
    const { reference } = await create({
      beneficiary_reference: beneficiary.id,
      amount: 250_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(-3) },
    });
    const waiting = await until(
      reference,
      (payment) => payment.payment_gateway?.status === 'waiting_for_validated_account',
    );
    expect(waiting).toMatchObject({
      status: 'pending',
      pay_date: day(-3),
      payment_gateway: {
        reason:
          'Distribuciones Sin Cuenta S.A.S. has no bank account: register one (POST /beneficiaries/{reference}/bank-accounts, or ops bank-accounts add)',
      },
    });
    expect(await gatewayTransfers([reference])).toEqual([]);
    // The Temporal UI lists the flow as the payment, and says what it waits for.
    await expect
      .poll(() => flowInWords(api.client, `payment/${reference}`))
      .toEqual({
        summary: 'Payment of 250,000.00 COP',
        details:
          'Waiting for a validated bank account: Distribuciones Sin Cuenta S.A.S. has no bank account: register one (POST /beneficiaries/{reference}/bank-accounts, or ops bank-accounts add)',
      });

    // A rejected account leaves it waiting, and the reason says so.
    const refused = accountNumber();
    await steerBankValidation({ account_number: refused, outcome: 'invalid', reason: 'La cuenta no es del titular' });
    expect((await addAccount(beneficiary, refused)).code).toBe(0);
    const stillWaiting = await until(reference, (payment) =>
      String(payment.payment_gateway?.reason).includes('rejected'),
    );
    expect(stillWaiting).toMatchObject({
      status: 'pending',
      payment_gateway: {
        status: 'waiting_for_validated_account',
        reason: `No bank account of Distribuciones Sin Cuenta S.A.S. is validated: …${refused.slice(-4)} rejected (La cuenta no es del titular)`,
      },
    });
    expect(await gatewayTransfers([reference])).toEqual([]);

    // A validated one: the payment goes, to that account, once.
    const good = accountNumber();
    expect((await addAccount(beneficiary, good)).code).toBe(0);
    const paid = await processed(reference);
    expect(paid.payment_gateway).toMatchObject({ status: 'settled', transfer_id: expect.stringMatching(/^trf_/) });
    const transfers = await gatewayTransfers([reference]);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.account).toMatchObject({ account_number: good, bank_code: '1007' });
    expect(await api.client.workflow.getHandle(`payment/${reference}`).result()).toBe('processed');
  });
});

describe('the pay date', () => {
  it("is the payable's due date unless the request gives another; the payment waits for it on a timer", async () => {
    const beneficiary = await supplier('Calendario Exacto S.A.S.');
    // 15 days ahead: 1.5 s in the suite.
    const created = await create({
      beneficiary_reference: beneficiary.id,
      amount: 310_000,
      amount_currency: 'COP',
      pay_date: day(15),
      payable_payload: { expiration_date: day(40) },
    });
    expect(created).toMatchObject({ status: 'pending', pay_date: day(15), payable: { expiration_date: day(40) } });
    expect((await detail(created.reference)).payment_gateway).toEqual({ status: 'scheduled', pay_date: day(15) });

    const paid = await processed(created.reference);
    const waited = Date.parse(String(paid.payment_gateway!.submitted_at)) - Date.parse(paid.created_at);
    expect(waited).toBeGreaterThanOrEqual(15 * 100);
    expect(paid.payable.expiration_date).toBe(day(40));

    const byDueDate = await create({
      beneficiary_reference: beneficiary.id,
      amount: 320_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(5) },
    });
    expect(byDueDate.pay_date).toBe(day(5));
    await processed(byDueDate.reference);
  });

  it('refuses a pay_date that is not a calendar date', async () => {
    const beneficiary = await supplier('Fechas Raras Ltda');
    const answer = await sdk.createPayment({
      body: {
        beneficiary_reference: beneficiary.id,
        amount: 1_000,
        amount_currency: 'COP',
        pay_date: '31/12/2026',
        payable_payload: { expiration_date: day(5) },
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({
      success: false,
      error: { code: 'VALIDATION_ERROR', details: { pay_date: [expect.any(String)] } },
    });
  });
});

describe('ops payments reschedule', () => {
  it('moves the timer: a payment far ahead goes at once when rescheduled to today', async () => {
    const beneficiary = await supplier('Pronto Pago S.A.S.');
    // 300 days ahead: 30 s in the suite, longer than the poll below allows.
    const { reference } = await create({
      beneficiary_reference: beneficiary.id,
      amount: 410_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(3000) },
    });
    const moved = await ops('payments', 'reschedule', '--payment', reference, '--due-date', day(0));
    expect(moved.stdout).toEqual({ payment: reference, previous_due_date: day(3000), new_due_date: day(0) });
    const paid = await until(reference, (payment) => payment.status === 'processed');
    expect(paid).toMatchObject({ pay_date: day(0), payable: { expiration_date: day(0) } });
  });

  it('refuses a day already past, a malformed date, and a payment already on its way', async () => {
    const beneficiary = await supplier('Tarde Ya S.A.S.');
    await steerGateway({ amount_cents: '42042042', outcome: 'hold' });
    const { reference } = await create({
      beneficiary_reference: beneficiary.id,
      amount: 420_420.42,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(2000) },
    });
    const past = await ops('payments', 'reschedule', '--payment', reference, '--due-date', day(-1));
    expect(past.code).toBe(1);
    expect(past.stderr.error.code).toBe('invalid_due_date');
    const malformed = await ops('payments', 'reschedule', '--payment', reference, '--due-date', '2026-13-01');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr.error.code).toBe('invalid_date');
    expect(await detail(reference)).toMatchObject({ pay_date: day(2000), payable: { expiration_date: day(2000) } });

    await ops('payments', 'reschedule', '--payment', reference, '--due-date', day(0));
    await until(reference, (payment) => payment.status === 'in_process');
    const late = await ops('payments', 'reschedule', '--payment', reference, '--due-date', day(30));
    expect(late.code).toBe(1);
    expect(late.stderr.error.code).toBe('payment_in_process');
    const cancel = await ops('payments', 'cancel', '--payment', reference, '--reason', 'Demasiado tarde');
    expect(cancel.stderr.error.code).toBe('payment_in_process');
    await steerGateway({ reference, outcome: 'settle' });
    expect(await processed(reference)).toMatchObject({ pay_date: day(0) });
  });
});

describe('ops payments cancel', () => {
  it("fails a pending payment with the operator's reason; its payable can be paid again", async () => {
    const document = await seedDocument(api.orm, company, { amountCents: 530_000_00n, approvalStatus: 'approved' });
    const beneficiary = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, {
      id: document.beneficiary!.id,
    });
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: accountNumber() });
    const payable = await seedPayable(api.orm, company, {
      beneficiary,
      document,
      amountCents: 530_000_00n,
      expirationDate: day(3000),
    });
    const { reference } = await create({ payable_reference: payable.id, amount: 530_000, amount_currency: 'COP' });
    // The whole balance is taken by the pending payment.
    const second = await sdk.createPayment({
      body: { payable_reference: payable.id, amount: 1, amount_currency: 'COP' },
    });
    expect(second.status).toBe(422);

    const canceled = await ops(
      'payments',
      'cancel',
      '--payment',
      reference,
      '--reason',
      'El proveedor anuló la factura',
    );
    expect(canceled.stdout).toEqual({
      payment: reference,
      status: 'failed',
      failure_reason: 'Canceled by the operator: El proveedor anuló la factura',
    });
    const shown = await detail(reference);
    expect(shown).toMatchObject({
      status: 'failed',
      payment_gateway: { status: 'canceled', canceled_at: expect.any(String) },
      payable: { status: 'pending', balance: 530_000 },
    });
    expect(await api.client.workflow.getHandle(`payment/${reference}`).result()).toBe('canceled');
    expect(await gatewayTransfers([reference])).toEqual([]);
    expect(expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200).payment_status).toBe(
      'pending',
    );

    const again = await ops('payments', 'cancel', '--payment', reference, '--reason', 'Otra vez');
    expect(again.stderr.error.code).toBe('payment_final');
    // Nothing left the account: the payable is whole again, and paid by a new payment.
    const replacement = await create({ payable_reference: payable.id, amount: 530_000, amount_currency: 'COP' });
    await ops('payments', 'reschedule', '--payment', replacement.reference, '--due-date', day(0));
    await processed(replacement.reference);
    expect(expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200).payment_status).toBe(
      'paid',
    );
  });
});

describe('ops payments batch create', () => {
  const batchesOfCompany = () => companyEm(api.orm, company.id).count(PaymentBatch, {});

  it('releases pending payments at once as one bulk transfer; each payment shows its batch', async () => {
    const payments: string[] = [];
    for (const [index, name] of ['Lote Uno S.A.S.', 'Lote Dos S.A.S.', 'Lote Tres S.A.S.'].entries()) {
      const beneficiary = await supplier(name);
      const created = await create({
        beneficiary_reference: beneficiary.id,
        amount: 100_000 + index,
        amount_currency: 'COP',
        payable_payload: { expiration_date: day(3000) },
      });
      payments.push(created.reference);
    }
    const released = await ops(
      'payments',
      'batch',
      'create',
      '--payments',
      payments.join(','),
      '--name',
      'Proveedores diciembre',
    );
    expect(released.code).toBe(0);
    const batch = released.stdout.reference as string;
    expect(released.stdout).toEqual({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Proveedores diciembre',
      currency: 'COP',
      status: 'releasing',
      payments,
    });
    for (const reference of payments)
      expect(await processed(reference)).toMatchObject({
        batch: { reference: batch, name: 'Proveedores diciembre', status: 'released' },
      });
    const bulk = await gatewayBulkTransfer(batch);
    expect(bulk?.transfers.map((transfer) => transfer.reference).sort()).toEqual([...payments].sort());
    expect(await gatewayTransfers(payments)).toHaveLength(3);
    expect(await api.client.workflow.getHandle(`payment-batch/${batch}`).result()).toEqual({ released: 3, left: 0 });

    const listed = expectStatus(await sdk.listPayments({ query: { batch_reference: batch } }), 200);
    expect(listed.items.map((item) => item.reference).sort()).toEqual([...payments].sort());
  });

  it('refuses mixed currencies, mixed companies, unknown payments and payments without a validated account, writing nothing', async () => {
    const pending = async (beneficiary: Beneficiary, currency: 'COP' | 'USD') =>
      (
        await create({
          beneficiary_reference: beneficiary.id,
          amount: 5_000,
          amount_currency: currency,
          payable_payload: { expiration_date: day(3000) },
        })
      ).reference;
    const peso = await pending(await supplier('Moneda Local S.A.S.'), 'COP');
    const dollar = await pending(await supplier('Moneda Extranjera Inc'), 'USD');
    const unvalidated = await pending(await supplier('Cuenta Pendiente S.A.S.', { validated: false }), 'COP');
    const other = await makeCompany(api.orm, { country: 'COL' });
    const foreign = await seedBeneficiary(api.orm, other.company, { name: 'Otra Empresa S.A.S.' });
    await seedBankAccount(api.orm, other.company, foreign, { bankCode: '1007', accountNumber: accountNumber() });
    const theirs = expectStatus(
      await api.sdk(other.apiKey).createPayment({
        body: {
          beneficiary_reference: foreign.id,
          amount: 5_000,
          amount_currency: 'COP',
          payable_payload: { expiration_date: day(3000) },
        },
      }),
      201,
    ).reference;

    // A payment of a document SAT cancelled, not yet cancelled itself by the cancellation's process.
    const canceledDocument = await seedDocument(api.orm, company, { amountCents: 5_000_00n });
    await companyEm(api.orm, company.id).nativeUpdate(Document, { id: canceledDocument.id }, { isCanceled: true });
    const ofCanceled = await seedPayment(api.orm, company, {
      payable: await seedPayable(api.orm, company, {
        beneficiary: canceledDocument.beneficiary!,
        document: canceledDocument,
        amountCents: 5_000_00n,
      }),
      amountCents: 5_000_00n,
    });
    await seedBankAccount(api.orm, company, canceledDocument.beneficiary!, {
      bankCode: '1007',
      accountNumber: accountNumber(),
    });

    const before = await batchesOfCompany();
    const refusals = [
      [[peso, ofCanceled.id], 'document_canceled'],
      [[peso, dollar], 'batch_mixed_currencies'],
      [[peso, theirs], 'batch_mixed_companies'],
      [[peso, '00000000-0000-4000-8000-000000000000'], 'payment_not_found'],
      [[peso, unvalidated], 'no_validated_account'],
    ] as const;
    for (const [payments, code] of refusals) {
      const answer = await ops('payments', 'batch', 'create', '--payments', payments.join(','));
      expect(answer.code).toBe(1);
      expect(answer.stderr.error).toEqual({ code, message: expect.any(String) });
    }
    expect(await batchesOfCompany()).toBe(before);
    for (const reference of [peso, dollar, unvalidated]) expect((await detail(reference)).batch).toBeNull();
    expect((await ops('payments', 'batch', 'create', '--payments', 'not-a-uuid')).code).toBe(2);
  });

  it('lets each payment go once when a batch release races its own release', async () => {
    const payments: string[] = [];
    for (let index = 0; index < 4; index++) {
      const beneficiary = await supplier(`Carrera ${index} S.A.S.`);
      payments.push(
        (
          await create({
            beneficiary_reference: beneficiary.id,
            amount: 77_000 + index,
            amount_currency: 'COP',
            payable_payload: { expiration_date: day(40) },
          })
        ).reference,
      );
    }
    // The batch is written as the CLI writes it, then each payment is moved to a date 0 to 3 days (0 to 0.3 s) away and
    // the batch asks each one to join as its timer fires: some have gone alone by then, the others go with the batch.
    const temporal = { client: api.client, taskQueue: inject('taskQueue') };
    const { batch } = await createPaymentBatch(systemEm(api.orm), { paymentIds: payments, name: 'Carrera' });
    await Promise.all(
      payments.map((reference, index) => reschedulePaymentThroughProcess(temporal, reference, day(index))),
    );
    await startPaymentBatch(temporal, { companyId: company.id, batchId: batch.id, paymentIds: payments });
    for (const reference of payments) await processed(reference);

    const transfers = await gatewayTransfers(payments);
    expect(transfers.map((transfer) => transfer.reference).sort()).toEqual([...payments].sort());
    const outcome = await api.client.workflow.getHandle(`payment-batch/${batch.id}`).result();
    const inBatch = (await Promise.all(payments.map(detail))).filter(
      (payment) => payment.batch?.reference === batch.id,
    );
    expect(outcome).toEqual({ released: inBatch.length, left: payments.length - inBatch.length });
    const bulk = await gatewayBulkTransfer(batch.id);
    expect(bulk?.transfers.map((transfer) => transfer.reference).sort() ?? []).toEqual(
      inBatch.map((payment) => payment.reference).sort(),
    );
  });
});

describe('PUT /api/v1/erp/advances/{reference}', () => {
  const putBalance = (reference: string, body: unknown, key = apiKey) =>
    fetch(`${api.url}/api/v1/erp/advances/${reference}`, {
      method: 'PUT',
      headers: { authorization: `ApiKey ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as any }));

  it("records what the ERP left of a paid advance, idempotently, and proposes the rest in the beneficiary's next voucher", async () => {
    const document = await seedDocument(api.orm, company, { amountCents: 119_000_00n, approvalStatus: 'approved' });
    const beneficiary = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, {
      id: document.beneficiary!.id,
    });
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: accountNumber() });
    const advance = await create({
      beneficiary_reference: beneficiary.id,
      amount: 500_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(-1), type: 'advance' },
    });
    expect((await processed(advance.reference)).advance_balance).toEqual({
      original_amount: 500_000,
      outstanding_amount: 500_000,
      updated_at: null,
    });

    const updated = await putBalance(advance.reference, { outstanding_amount_cents: 120_000_00 });
    expect(updated).toEqual({
      status: 200,
      body: {
        reference: advance.reference,
        currency: 'COP',
        original_amount_cents: 500_000_00,
        outstanding_amount_cents: 120_000_00,
        updated_at: expect.any(String),
      },
    });
    const again = await putBalance(advance.reference, { outstanding_amount_cents: 120_000_00 });
    expect(again.body).toEqual(updated.body);
    expect((await detail(advance.reference)).advance_balance).toEqual({
      original_amount: 500_000,
      outstanding_amount: 120_000,
      updated_at: updated.body.updated_at,
    });

    const above = await putBalance(advance.reference, { outstanding_amount_cents: 500_000_01 });
    expect(above).toMatchObject({
      status: 422,
      body: { code: 'outstanding_out_of_range', message: expect.any(String) },
    });
    const negative = await putBalance(advance.reference, { outstanding_amount_cents: -1 });
    expect(negative).toMatchObject({ status: 400, body: { error: { code: 'VALIDATION_ERROR' } } });
    expect((await detail(advance.reference)).advance_balance?.outstanding_amount).toBe(120_000);
    const other = await makeCompany(api.orm, { country: 'COL' });
    expect(await putBalance(advance.reference, { outstanding_amount_cents: 0 }, other.apiKey)).toMatchObject({
      status: 404,
      body: { code: 'payment_not_found' },
    });

    // The beneficiary's next voucher proposes to cross what is left: 119,000.00 of the 120,000.00.
    expect((await ops('documents', 'account', '--document', document.id)).code).toBe(0);
    const entry = await companyEm(api.orm, company.id).findOneOrFail(AccountingEntry, { document: document.id });
    expect(entry.advanceCrossings).toEqual([
      {
        external_move_line_id: advance.reference,
        external_move_id: null,
        external_payment_id: null,
        amount_cents: 119_000_00,
        original_amount_cents: 500_000_00,
        outstanding_amount_cents: 1_000_00,
        currency: 'COP',
        advance_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        status: 'proposed',
        reference: advance.reference,
      },
    ]);
  });

  it('refuses a payment that is not a paid advance', async () => {
    const beneficiary = await supplier('No Anticipo S.A.S.');
    const supplierPayment = await create({
      beneficiary_reference: beneficiary.id,
      amount: 9_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(-1) },
    });
    await processed(supplierPayment.reference);
    expect(await putBalance(supplierPayment.reference, { outstanding_amount_cents: 0 })).toMatchObject({
      status: 422,
      body: { code: 'not_an_advance' },
    });
    const unpaid = await create({
      beneficiary_reference: beneficiary.id,
      amount: 8_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: day(3000), type: 'advance' },
    });
    expect(await putBalance(unpaid.reference, { outstanding_amount_cents: 0 })).toMatchObject({
      status: 409,
      body: { code: 'advance_not_paid' },
    });
  });
});
