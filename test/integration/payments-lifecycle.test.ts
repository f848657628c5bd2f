import { expectStatus, type Client, type CreatePayment, type Payment } from '@accounts-payable/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { newPaymentId } from '../../api/routes/payments.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { IdempotencyKey } from '../../db/idempotency/idempotency-key.entity.ts';
import { companyEm } from '../../db/orm.ts';
import type { Payable } from '../../db/payments/payable.entity.ts';
import { Payment as PaymentRow } from '../../db/payments/payment.entity.ts';
import { createPaymentThroughProcess } from '../../temporal/payments.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { seedBankAccount, seedBeneficiary, seedPayable, seedPayment, steerGateway } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
let sdk: Client;

beforeAll(async () => {
  api = await startTestApi({ config: { paymentPollIntervalMs: 100 } });
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  sdk = api.sdk(apiKey);
});
afterAll(() => api.close());

type NewPayment = CreatePayment['request']['body'];
const pay = (body: NewPayment) => sdk.createPayment({ body });
const create = async (body: NewPayment) => expectStatus(await pay(body), 201);
const detail = async (reference: string) => expectStatus(await sdk.getPayment({ params: { reference } }), 200);
const documentOf = async (reference: string) => expectStatus(await sdk.getDocument({ params: { reference } }), 200);

/** Waits until the payment reaches a final status (or the one asked for), and returns its detail. */
async function settled(reference: string, status: Payment['status'] = 'processed'): Promise<Payment> {
  let body: Payment | undefined;
  await expect
    .poll(
      async () => {
        body = await detail(reference);
        return body.status;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe(status);
  return body!;
}

describe('a manual payment', () => {
  let beneficiary: Beneficiary;
  beforeAll(async () => {
    beneficiary = await seedBeneficiary(api.orm, company, {
      name: 'Transportes Río Claro S.A.S.',
      email: 'pagos@rioclaro.co',
    });
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: '12345678901' });
  });

  it('creates a supplier payable and a pending payment, then the gateway settles it', async () => {
    const created = await pay({
      beneficiary_reference: beneficiary.id,
      amount: 1_234.5,
      amount_currency: 'COP',
      file_path: 'https://files.example.com/soportes/flete-88.pdf',
      payable_payload: { expiration_date: '2026-12-15', issue_date: '2026-12-01', concept: 'Flete noviembre' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: expect.stringMatching(/^(pending|in_process)$/),
      amount: 1234.5,
      exchange_amount: 1234.5,
      amount_currency: 'COP',
      exchange_currency: null,
      exchange_rate: null,
      document: null,
      email: 'pagos@rioclaro.co',
      beneficiary: {
        reference: beneficiary.id,
        name: 'Transportes Río Claro S.A.S.',
        is_deleted: false,
        deleted_at: null,
      },
      payable: {
        type: 'supplier',
        status: 'pending',
        origin: 'manual',
        amount: 1234.5,
        balance: 1234.5,
        issue_date: '2026-12-01',
        expiration_date: '2026-12-15',
        concept: 'Flete noviembre',
        file_path: 'https://files.example.com/soportes/flete-88.pdf',
      },
      paid_at: null,
      is_archived: false,
      tags: [],
    });
    const processed = await settled(expectStatus(created, 201).reference);
    expect(processed.paid_at).toEqual(expect.any(String));
    expect(processed.payment_method).toBe('bank_transfer');
    expect(processed.payable).toMatchObject({ status: 'paid', balance: 0 });
    expect(processed.payment_gateway).toMatchObject({
      provider: 'gateway',
      transfer_id: expect.stringMatching(/^trf_/),
      status: 'settled',
    });
    expect(await api.client.workflow.getHandle(`payment/${processed.reference}`).result()).toBe('processed');
  });

  it('shows in_process while the gateway holds the transfer', async () => {
    await steerGateway({ amount_cents: '77731', outcome: 'hold' });
    const created = await create({
      beneficiary_reference: beneficiary.id,
      amount: '777.31',
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-20' },
    });
    await settled(created.reference, 'in_process');
    await steerGateway({ reference: created.reference, outcome: 'settle' });
    await settled(created.reference, 'processed');
  });

  it('fails a transfer the gateway refuses outright, with its reason', async () => {
    await steerGateway({ amount_cents: '88817', outcome: 'refuse', reason: 'Account blocked' });
    const created = await create({
      beneficiary_reference: beneficiary.id,
      amount: 888.17,
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-20', type: 'advance' },
    });
    const failed = await settled(created.reference, 'failed');
    expect(failed.payable).toMatchObject({ type: 'advance', status: 'pending', balance: 888.17 });
    expect(failed.paid_at).toBeNull();
    expect(failed.payment_gateway?.failure_reason).toContain('Account blocked');
  });

  it('converts with the exchange rate, exactly', async () => {
    const created = await create({
      beneficiary_reference: beneficiary.id,
      amount: 100.01,
      amount_currency: 'USD',
      exchange_rate: '4012.3456',
      exchange_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-31' },
    });
    // 100.01 × 4012.3456 = 401274.683456 → 401274.68
    expect(created).toMatchObject({
      amount: 100.01,
      amount_currency: 'USD',
      exchange_rate: 4012.3456,
      exchange_currency: 'COP',
      exchange_amount: 401274.68,
    });
  });

  it('makes an employee payment a payroll payment, hidden from the default list', async () => {
    const employee = await seedBeneficiary(api.orm, company, { name: 'Laura Méndez', type: 'employee' });
    const created = await create({
      beneficiary_reference: employee.id,
      amount: 2_500_000,
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-30', concept: 'Nómina diciembre' },
    });
    expect(created.payable.type).toBe('payroll');
    const advance = await pay({
      beneficiary_reference: employee.id,
      amount: 10,
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-30', type: 'advance' },
    });
    expect(advance.status).toBe(422);
    expect(advance.body).toEqual({ code: 'invalid_payable_type', message: expect.any(String) });
    const list = expectStatus(await sdk.listPayments({ query: { beneficiary_reference: employee.id } }), 200);
    expect(list.total).toBe(0);
    const withPayroll = expectStatus(
      await sdk.listPayments({ query: { beneficiary_reference: employee.id, include_payroll: 'true' } }),
      200,
    );
    expect(withPayroll.items.map((item) => item.reference)).toEqual([created.reference]);
  });
});

describe('payments of a document', () => {
  let document: Document;
  let first: Payable;
  let second: Payable;

  beforeAll(async () => {
    document = await seedDocument(api.orm, company, {
      documentNumber: 'FE-PAY-1',
      amountCents: 10_003_96n,
      approvalStatus: 'approved',
      tags: ['Proyecto Norte'],
    });
    const full = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, { id: document.beneficiary!.id });
    await seedBankAccount(api.orm, company, full, { bankCode: '1007', accountNumber: '22345678901' });
    // Two installments of one debt: 6,001.37 and 4,002.59.
    first = await seedPayable(api.orm, company, {
      beneficiary: full,
      document,
      amountCents: 6_001_37n,
      expirationDate: '2026-11-15',
      installmentNumber: 1,
    });
    second = await seedPayable(api.orm, company, {
      beneficiary: full,
      document,
      amountCents: 4_002_59n,
      expirationDate: '2026-12-15',
      installmentNumber: 2,
    });
  });

  it('fails one payment, then pays with new ones: the document goes pending → partial → paid, per payable', async () => {
    await steerGateway({ amount_cents: '600137', outcome: 'fail', reason: 'Cuenta inexistente' });
    const failing = await create({ payable_reference: first.id, amount: 6_001.37, amount_currency: 'COP' });
    expect(failing).toMatchObject({
      document: {
        reference: document.id,
        type: 'invoice',
        document_number: 'FE-PAY-1',
        origin: 'fiscal_entity',
        amount: 10_003.96,
        amount_currency: 'COP',
        is_canceled: false,
      },
      payable: { reference: first.id, origin: 'document', amount: 6001.37 },
      tags: ['Proyecto Norte'],
    });
    const failed = await settled(failing.reference, 'failed');
    expect(failed.payment_gateway?.failure_reason).toBe('Cuenta inexistente');
    expect(failed.payable).toMatchObject({ status: 'pending', balance: 6001.37 });
    expect((await documentOf(document.id)).payment_status).toBe('pending');

    const part = await create({ payable_reference: first.id, amount: 2_001.37, amount_currency: 'COP' });
    expect((await settled(part.reference)).payable).toMatchObject({ status: 'partial', balance: 4000 });
    expect((await documentOf(document.id)).payment_status).toBe('partial');

    const tooMuch = await pay({ payable_reference: first.id, amount: 4_000.01, amount_currency: 'COP' });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toEqual({ code: 'amount_exceeds_balance', message: expect.stringContaining('4000.00') });

    const rest = await create({ payable_reference: first.id, amount: 4_000, amount_currency: 'COP' });
    expect((await settled(rest.reference)).payable).toMatchObject({ status: 'paid', balance: 0 });
    // The first payable is paid in full, but the second is not: still partial.
    expect((await documentOf(document.id)).payment_status).toBe('partial');

    const last = await create({
      payable_reference: second.id,
      beneficiary_reference: document.beneficiary!.id,
      amount: 4_002.59,
      amount_currency: 'COP',
    });
    await settled(last.reference);
    const settledDocument = await documentOf(document.id);
    expect(settledDocument.payment_status).toBe('paid');
    expect(settledDocument.payables.map((payable) => [payable.status, payable.balance])).toEqual([
      ['paid', 0],
      ['paid', 0],
    ]);
    expect(settledDocument.payments.map((payment) => payment.status)).toEqual([
      'failed',
      'processed',
      'processed',
      'processed',
    ]);
    expect(
      settledDocument.logs
        .filter((log) => log.metadata.change === 'payment_status')
        .map((log) => log.metadata.payment_status),
    ).toEqual(['partial', 'paid']);

    const again = await pay({ payable_reference: second.id, amount: 1, amount_currency: 'COP' });
    expect(again).toMatchObject({ status: 422, body: { code: 'payable_not_payable' } });
  });

  it("propagates the document's later tags to its payments", async () => {
    await sdk.tagDocument({ params: { reference: document.id }, body: { tags_text: ['Revisado'] } });
    const list = expectStatus(await sdk.listPayments({ query: { document_reference: document.id } }), 200);
    expect(list.total).toBe(4);
    for (const item of list.items) expect(item.tags).toEqual(['Proyecto Norte', 'Revisado']);
  });

  it('refuses a payable of another company, another currency, or the wrong beneficiary', async () => {
    const other = await makeCompany(api.orm, { country: 'COL' });
    const asOther = await api
      .sdk(other.apiKey)
      .createPayment({ body: { payable_reference: first.id, amount: 1, amount_currency: 'COP' } });
    expect(asOther.status).toBe(404);
    expect(asOther.body).toEqual({ code: 'payable_not_found', message: expect.any(String) });
    const fresh = await seedPayable(api.orm, company, {
      beneficiary: await seedBeneficiary(api.orm, company, { name: 'Otro' }),
      amountCents: 1_000_00n,
    });
    const currency = await pay({ payable_reference: fresh.id, amount: 1, amount_currency: 'USD' });
    expect(currency).toMatchObject({ status: 422, body: { code: 'currency_mismatch' } });
    const mismatch = await pay({
      payable_reference: fresh.id,
      beneficiary_reference: document.beneficiary!.id,
      amount: 1,
      amount_currency: 'COP',
    });
    expect(mismatch).toMatchObject({ status: 422, body: { code: 'beneficiary_mismatch' } });
  });
});

describe('POST /payments with an Idempotency-Key whose answer was lost', () => {
  /** What the API does with the key when its request answers a 5xx (say the Temporal deadline passed): it lets it go. */
  const releaseKey = (key: string) => companyEm(api.orm, company.id).nativeDelete(IdempotencyKey, { key });
  const paymentsOf = (payable: string) => companyEm(api.orm, company.id).count(PaymentRow, { payable });
  const payWithKey = (body: NewPayment, key: string) => sdk.createPayment({ body, idempotencyKey: key });

  it('answers a retry with the same payment, while its process runs and once it has ended', async () => {
    const beneficiary = await seedBeneficiary(api.orm, company, { name: 'Ferretería El Tornillo S.A.S.' });
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: '32345678901' });
    await steerGateway({ amount_cents: '31415', outcome: 'hold' });
    const body: NewPayment = {
      beneficiary_reference: beneficiary.id,
      amount: 314.15,
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-20' },
    };
    const first = expectStatus(await payWithKey(body, 'pay-lost-answer'), 201);

    await releaseKey('pay-lost-answer');
    const retried = await payWithKey(body, 'pay-lost-answer');
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(expectStatus(retried, 201).reference).toBe(first.reference);

    await steerGateway({ reference: first.reference, outcome: 'settle' });
    await settled(first.reference);
    expect(await api.client.workflow.getHandle(`payment/${first.reference}`).result()).toBe('processed');
    await releaseKey('pay-lost-answer');
    expect(expectStatus(await payWithKey(body, 'pay-lost-answer'), 201)).toMatchObject({
      reference: first.reference,
      status: 'processed',
    });
    expect(await paymentsOf(first.payable.reference)).toBe(1);
    // Without a key, the same body is another payment.
    expect(expectStatus(await pay(body), 201).reference).not.toBe(first.reference);
  });

  it('evaluates afresh a retry whose process refused the payment and ended', async () => {
    const beneficiary = await seedBeneficiary(api.orm, company, { name: 'Papelería La Hoja S.A.S.' });
    await seedBankAccount(api.orm, company, beneficiary, { bankCode: '1007', accountNumber: '42345678901' });
    const payable = await seedPayable(api.orm, company, { beneficiary, amountCents: 500_00n });
    const blocking = await seedPayment(api.orm, company, { payable, amountCents: 500_00n });
    const body: NewPayment = { payable_reference: payable.id, amount: 500, amount_currency: 'COP' };
    const paymentId = newPaymentId(company.id, 'pay-refused-then-lost', JSON.stringify(body));
    // The first attempt: its process is refused under lock (the balance is taken), and that answer never reaches the client.
    const command = {
      beneficiaryId: null,
      payableId: payable.id,
      amountCents: '50000',
      currency: 'COP' as const,
      exchangeRate: null,
      exchangeCurrency: null,
      exchangeAmountCents: null,
      filePath: null,
      payDate: null,
      payable: null,
    };
    const refused = await createPaymentThroughProcess(
      { client: api.client, taskQueue: inject('taskQueue') },
      { companyId: company.id, paymentId, pollIntervalMs: 100 },
      command,
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(await api.client.workflow.getHandle(`payment/${paymentId}`).result()).toBe('refused');

    await companyEm(api.orm, company.id).nativeUpdate(PaymentRow, { id: blocking.id }, { status: 'failed' });
    const retried = expectStatus(await payWithKey(body, 'pay-refused-then-lost'), 201);
    expect(retried.reference).toBe(paymentId);
    await settled(paymentId);
    expect(await paymentsOf(payable.id)).toBe(2);
  });
});

describe('POST /payments validation', () => {
  it('enforces the required fields and limits with the validation envelope', async () => {
    const beneficiary = await seedBeneficiary(api.orm, company, { name: 'Validaciones S.A.S.' });
    const base: NewPayment = {
      beneficiary_reference: beneficiary.id,
      amount: 10,
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-01' },
    };
    // Some of these bodies break the types on purpose: they are sent raw.
    const details = async (body: unknown) => {
      const response = await api.call('POST', '/public/api/v1/payments', { apiKey, body });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      return Object.keys(response.body.error.details);
    };
    expect(await details({ ...base, amount: 0.99 })).toEqual(['amount']);
    expect(await details({ ...base, amount: 1.001 })).toEqual(['amount']);
    expect(await details({ ...base, amount: 'ten' })).toEqual(['amount']);
    expect(await details({ ...base, amount_currency: 'PEN' })).toEqual(['amount_currency']);
    expect(await details({ ...base, beneficiary_reference: undefined })).toEqual(['beneficiary_reference']);
    expect(await details({ ...base, payable_payload: undefined })).toEqual(['payable_payload']);
    expect(await details({ ...base, payable_reference: beneficiary.id })).toEqual(['payable_payload']);
    expect(
      await details({ ...base, payable_payload: { expiration_date: '2026-12-01', issue_date: '2026-12-02' } }),
    ).toEqual(['payable_payload.issue_date']);
    expect(await details({ ...base, payable_payload: { expiration_date: '01/12/2026' } })).toEqual([
      'payable_payload.expiration_date',
    ]);
    expect(await details({ ...base, exchange_rate: 4000 })).toEqual(['exchange_currency']);
    expect(await details({ ...base, file_path: 'ftp://files.example.com/a.pdf' })).toEqual(['file_path']);
    const minimum = await pay({ ...base, amount: 1 });
    expect(minimum.status).toBe(201);
    const unknown = await pay({ ...base, beneficiary_reference: '00000000-0000-4000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'beneficiary_not_found', message: expect.any(String) });
  });
});
