import { expectStatus, type ListPayments, type PaymentList } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { BeneficiaryContact } from '../../db/beneficiaries/contact.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import type { PaymentBatch } from '../../db/payments/payment-batch.entity.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { PaymentTag } from '../../db/tags/payment-tag.entity.ts';
import { Tag } from '../../db/tags/tag.entity.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { seedBatch, seedBeneficiary, seedPayable, seedPayment } from '../helpers/payments.ts';
import { countingOrm } from '../helpers/query-counter.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
let batch: PaymentBatch;
const docs: Record<string, Document> = {};
const payables: Record<string, Payable> = {};
const payments: Record<string, Payment> = {};
const beneficiaries: Record<string, string> = {};

/*
 * The seeded set (created in this order, an hour apart):
 *   A  Alfa   document FE-1 (invoice), due 2026-11-10    100.00  processed  paid 2026-11-05  banking_correspondent  batch  tag Urgente
 *   B  Beta   document GX-2 (expense), due 2026-11-20    250.50  pending                                                (expense)
 *   C  Alfa   manual "Arriendo diciembre", due 2026-12-01  75.00  failed                       cash
 *   D  Beta   manual, due 2026-10-15                     500.00  in_process                   card                   batch
 *   E  Gómez  payroll, due 2026-11-30                  1,200.00  processed  paid 2026-11-29
 *   F  Alfa   manual, due 2026-11-01, archived            60.00  processed  paid 2026-11-02
 */
beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  const alfa = await seedBeneficiary(api.orm, company, {
    name: 'Alfa Ltda',
    identifierNumber: '800111001',
    email: 'tesoreria@alfa.co',
  });
  const beta = await seedBeneficiary(api.orm, company, { name: 'Beta S.A.S.', identifierNumber: '800222002' });
  const gomez = await seedBeneficiary(api.orm, company, {
    name: 'Carlos Gómez',
    type: 'employee',
    identifierNumber: '1020304050',
  });
  const em = companyEm(api.orm, company.id);
  em.create(BeneficiaryContact, { company, beneficiary: alfa, type: 'phone', value: '+57 601 555 0101' });
  await em.flush();
  Object.assign(beneficiaries, { alfa: alfa.id, beta: beta.id, gomez: gomez.id });
  batch = await seedBatch(api.orm, company, 'Lote noviembre');
  docs.fe1 = await seedDocument(api.orm, company, { documentNumber: 'FE-1', amountCents: 100_00n });
  docs.gx2 = await seedDocument(api.orm, company, { documentNumber: 'GX-2', type: 'expense', amountCents: 250_50n });
  payables.a = await seedPayable(api.orm, company, {
    beneficiary: alfa,
    document: docs.fe1,
    amountCents: 100_00n,
    expirationDate: '2026-11-10',
  });
  payables.b = await seedPayable(api.orm, company, {
    beneficiary: beta,
    document: docs.gx2,
    amountCents: 250_50n,
    expirationDate: '2026-11-20',
  });
  payables.c = await seedPayable(api.orm, company, {
    beneficiary: alfa,
    amountCents: 75_00n,
    expirationDate: '2026-12-01',
    concept: 'Arriendo diciembre',
  });
  payables.d = await seedPayable(api.orm, company, {
    beneficiary: beta,
    amountCents: 500_00n,
    expirationDate: '2026-10-15',
  });
  payables.e = await seedPayable(api.orm, company, {
    beneficiary: gomez,
    amountCents: 1_200_00n,
    expirationDate: '2026-11-30',
    type: 'payroll',
  });
  payables.f = await seedPayable(api.orm, company, {
    beneficiary: alfa,
    amountCents: 60_00n,
    expirationDate: '2026-11-01',
  });
  const at = (hour: number) => new Date(Date.UTC(2026, 10, 1, hour));
  payments.a = await seedPayment(api.orm, company, {
    payable: payables.a,
    amountCents: 100_00n,
    status: 'processed',
    paidAt: new Date('2026-11-05T15:00:00Z'),
    paymentMethod: 'banking_correspondent',
    batch,
    tags: ['Urgente'],
    createdAt: at(1),
  });
  payments.b = await seedPayment(api.orm, company, {
    payable: payables.b,
    amountCents: 250_50n,
    isExpense: true,
    createdAt: at(2),
  });
  payments.c = await seedPayment(api.orm, company, {
    payable: payables.c,
    amountCents: 75_00n,
    status: 'failed',
    paymentMethod: 'cash',
    createdAt: at(3),
  });
  payments.d = await seedPayment(api.orm, company, {
    payable: payables.d,
    amountCents: 500_00n,
    status: 'in_process',
    paymentMethod: 'card',
    batch,
    createdAt: at(4),
  });
  payments.e = await seedPayment(api.orm, company, {
    payable: payables.e,
    amountCents: 1_200_00n,
    status: 'processed',
    paidAt: new Date('2026-11-29T15:00:00Z'),
    createdAt: at(5),
  });
  payments.f = await seedPayment(api.orm, company, {
    payable: payables.f,
    amountCents: 60_00n,
    status: 'processed',
    paidAt: new Date('2026-11-02T15:00:00Z'),
    isArchived: true,
    createdAt: at(6),
  });
});
afterAll(() => api.close());

type ListQuery = NonNullable<ListPayments['request']['query']>;
const list = (query: ListQuery = {}, key = apiKey) => api.sdk(key).listPayments({ query });
const page = async (query: ListQuery = {}, key = apiKey) => expectStatus(await list(query, key), 200);
const letters = (body: PaymentList) =>
  body.items
    .map((item) => Object.entries(payments).find(([, payment]) => payment.id === item.reference)?.[0] ?? '?')
    .join('');
const listed = async (query: ListQuery) => letters(await page(query));

describe('GET /payments', () => {
  it('lists active payments without payroll, newest first, in the list envelope', async () => {
    const body = await page();
    expect(body).toMatchObject({ total: 4, current_page: 1, page_size: 20, total_pages: 1 });
    expect(letters(body)).toBe('dcba');
  });

  it('shows each item in the list shape', async () => {
    const { items } = await page({ payable_reference: payables.a!.id });
    expect(items).toEqual([
      {
        reference: payments.a!.id,
        beneficiary: {
          reference: beneficiaries.alfa,
          name: 'Alfa Ltda',
          identifier_type: 'NIT',
          identifier_number: '800111001',
          is_deleted: false,
          deleted_at: null,
          contact_information: [{ type: 'phone', value: '+57 601 555 0101' }],
        },
        email: 'tesoreria@alfa.co',
        document: {
          reference: docs.fe1!.id,
          type: 'invoice',
          document_number: 'FE-1',
          fiscal_reference: docs.fe1!.fiscalReference,
          origin: 'fiscal_entity',
          amount: 100,
          amount_currency: 'COP',
          is_canceled: false,
        },
        amount: 100,
        exchange_amount: 100,
        amount_currency: 'COP',
        exchange_currency: null,
        exchange_rate: null,
        status: 'processed',
        pay_date: '2026-11-10',
        file_path: null,
        receipt_file_path: null,
        is_archived: false,
        payable: {
          reference: payables.a!.id,
          type: 'supplier',
          status: 'pending',
          amount: 100,
          amount_currency: 'COP',
          file_path: null,
          balance: 100,
          issue_date: '2026-10-01',
          expiration_date: '2026-11-10',
          concept: null,
          origin: 'document',
          projects: [],
        },
        batch: { reference: batch.id, name: 'Lote noviembre', status: 'released' },
        tags: ['Urgente'],
        source_of_fund: null,
        accounting_receipt: null,
        paid_at: '2026-11-05T15:00:00.000Z',
        payment_method: 'banking_correspondent',
        created_at: '2026-11-01T01:00:00.000Z',
        updated_at: expect.any(String),
      },
    ]);
  });

  it('filters by beneficiary, document and batch references, several comma-separated', async () => {
    expect(await listed({ beneficiary_reference: beneficiaries.alfa })).toBe('ca');
    expect(await listed({ beneficiary_reference: `${beneficiaries.alfa},${beneficiaries.beta}` })).toBe('dcba');
    expect(await listed({ document_reference: docs.fe1!.id })).toBe('a');
    expect(await listed({ document_reference: `${docs.fe1!.id},${docs.gx2!.id}` })).toBe('ba');
    expect(await listed({ batch_reference: batch.id })).toBe('da');
    expect(await listed({ payable_reference: payables.b!.id })).toBe('b');
    expect(await listed({ batch_reference: '00000000-0000-4000-8000-000000000000' })).toBe('');
  });

  it('filters by status, and by state (archived ignores status)', async () => {
    expect(await listed({ status: 'processed' })).toBe('a');
    expect(await listed({ status: 'pending,in_process' })).toBe('db');
    expect(await listed({ state: 'active', status: 'failed' })).toBe('c');
    expect(await listed({ state: 'archived' })).toBe('f');
    expect(await listed({ state: 'archived', status: 'pending' })).toBe('f');
  });

  it("filters by the payable's due date, both ends inclusive", async () => {
    expect(await listed({ expiration_date_from: '2026-11-10', expiration_date_to: '2026-11-20' })).toBe('ba');
    expect(await listed({ expiration_date_from: '2026-11-21' })).toBe('c');
    expect(await listed({ expiration_date_to: '2026-10-15' })).toBe('d');
  });

  it('filters by tags (names or ids), payment methods, expenses and payroll', async () => {
    expect(await listed({ tags: 'urgente' })).toBe('a');
    const urgent = await companyEm(api.orm, company.id).findOneOrFail(Tag, { normalizedName: 'urgente' });
    expect(await listed({ tags: `${urgent.id},nada` })).toBe('a');
    expect(await listed({ payment_method: 'cash,card' })).toBe('dc');
    expect(await listed({ only_expenses: 'true' })).toBe('b');
    expect(await listed({ only_expenses: 'false' })).toBe('dcba');
    expect(await listed({ include_payroll: 'true' })).toBe('edcba');
    expect(await listed({ include_payroll: 'true', status: 'processed' })).toBe('ea');
  });

  it("searches the beneficiary's name and identifier, the payable's concept and the document number", async () => {
    expect(await listed({ search: 'beta' })).toBe('db');
    expect(await listed({ search: '800111' })).toBe('ca');
    expect(await listed({ search: 'arriendo' })).toBe('c');
    expect(await listed({ search: 'GX-2' })).toBe('b');
    expect(await listed({ search: '100%' })).toBe('');
  });

  it('sorts by each field in both directions', async () => {
    expect(await listed({ sort_by: 'created_at', sort_order: 'asc' })).toBe('abcd');
    expect(await listed({ sort_by: 'amount', sort_order: 'asc' })).toBe('cabd');
    expect(await listed({ sort_by: 'amount', sort_order: 'desc' })).toBe('dbac');
    expect(await listed({ sort_by: 'expiration_date', sort_order: 'asc' })).toBe('dabc');
    expect(await listed({ sort_by: 'expiration_date', sort_order: 'desc' })).toBe('cbad');
    // Unpaid payments come last either way (ties by reference, in the same direction).
    expect(await listed({ sort_by: 'paid_at', sort_order: 'desc' })).toBe('adcb');
    expect(await listed({ sort_by: 'paid_at', sort_order: 'asc' })).toBe('abcd');
    expect(await listed({ sort_by: 'beneficiary', sort_order: 'asc' })).toBe('acbd');
    expect(await listed({ sort_by: 'beneficiary', sort_order: 'desc' })).toBe('dbca');
  });

  it('paginates: a partial last page, an empty page past the end', async () => {
    const oldestFirst = { sort_by: 'created_at', sort_order: 'asc' } as const;
    const first = await page({ page_size: 3, ...oldestFirst });
    const second = await page({ page_size: 3, page: 2, ...oldestFirst });
    const beyond = await page({ page_size: 3, page: 3 });
    expect(letters(first)).toBe('abc');
    expect(first).toMatchObject({ total: 4, current_page: 1, page_size: 3, total_pages: 2 });
    expect(letters(second)).toBe('d');
    expect(second).toMatchObject({ total: 4, current_page: 2, page_size: 3, total_pages: 2 });
    expect(beyond).toMatchObject({ items: [], total: 4, current_page: 3 });
    expect(await listed({ page_size: 1, page: 4, ...oldestFirst })).toBe('d');
    expect((await page({ page_size: 100 })).page_size).toBe(100);
  });

  it('refuses what is out of bounds with the validation envelope', async () => {
    // Out-of-bounds and out-of-enum values on purpose: sent as raw query strings.
    const field = async (query: string) => {
      const response = await api.call('GET', `/public/api/v1/payments${query}`, { apiKey });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      return Object.keys(response.body.error.details);
    };
    expect(await field('?page=0')).toEqual(['page']);
    expect(await field('?page_size=0')).toEqual(['page_size']);
    expect(await field('?page_size=101')).toEqual(['page_size']);
    expect(await field(`?search=${'x'.repeat(51)}`)).toEqual(['search']);
    expect((await list({ search: 'x'.repeat(50) })).status).toBe(200);
    expect(await field('?status=paid')).toEqual(['status.0']);
    expect(await field('?state=deleted')).toEqual(['state']);
    expect(await field('?beneficiary_reference=abc')).toEqual(['beneficiary_reference.0']);
    expect(await field('?expiration_date_from=2026-13-01')).toEqual(['expiration_date_from']);
    expect(await field('?sort_by=document')).toEqual(['sort_by']);
    expect(await field('?only_expenses=yes')).toEqual(['only_expenses']);
  });

  it("never lists another company's payments", async () => {
    const other = await makeCompany(api.orm, { country: 'COL' });
    expect((await page({}, other.apiKey)).total).toBe(0);
    expect(await listed({ beneficiary_reference: beneficiaries.alfa })).toBe('ca');
    expect((await page({ beneficiary_reference: beneficiaries.alfa }, other.apiKey)).total).toBe(0);
  });
});

describe('GET /payments/{reference}', () => {
  it('answers the detail with every detail-only field', async () => {
    const detail = async (reference: string) =>
      expectStatus(await api.sdk(apiKey).getPayment({ params: { reference } }), 200);
    const body = await detail(payments.a!.id);
    expect(body).not.toHaveProperty('email');
    expect(body.beneficiary).toEqual({
      reference: beneficiaries.alfa,
      name: 'Alfa Ltda',
      type: 'supplier',
      identifier_type: 'NIT',
      identifier_number: '800111001',
      is_deleted: false,
      deleted_at: null,
      contact_information: [{ reference: expect.any(String), type: 'phone', value: '+57 601 555 0101' }],
    });
    expect(body.payable).toMatchObject({ reference: payables.a!.id, cost_center: null });
    expect(body).toMatchObject({
      reference: payments.a!.id,
      payment_gateway: null,
      has_erp_payment: false,
      erp_payment_reference: null,
      is_fiscal_entity: true,
      has_erp_payable: false,
      erp_payable_reference: null,
      erp_payable: null,
      erp_payment: null,
      tags: ['Urgente'],
    });
    expect(await detail(payments.c!.id)).toMatchObject({
      document: null,
      is_fiscal_entity: false,
      payable: { origin: 'manual', concept: 'Arriendo diciembre' },
    });
  });

  it('answers 400 invalid_input for a malformed reference and 404 payment_not_found for an unknown one, in the flat shape', async () => {
    const get = (reference: string, key = apiKey) => api.sdk(key).getPayment({ params: { reference } });
    const malformed = await get('not-a-uuid');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 'invalid_input', message: expect.any(String) });
    const unknown = await get('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'payment_not_found', message: expect.any(String) });
    const other = await makeCompany(api.orm, { country: 'COL' });
    expect((await get(payments.a!.id, other.apiKey)).status).toBe(404);
  });
});

describe('a payment with every field set', () => {
  it('shows each field in the list item, the detail and both of their shapes', async () => {
    const { company: own, apiKey: key } = await makeCompany(api.orm, { country: 'COL' });
    const em = companyEm(api.orm, own.id);
    const supplier = await seedBeneficiary(api.orm, own, {
      name: 'Delta S.A.',
      identifierNumber: '900333003',
      email: 'pagos@delta.co',
    });
    Object.assign(await em.findOneOrFail(Beneficiary, { id: supplier.id }), {
      isDeleted: true,
      deletedAt: new Date('2026-11-20T08:30:00.250Z'),
    });
    const phone = em.create(BeneficiaryContact, {
      company: own,
      beneficiary: supplier,
      type: 'phone',
      value: '+57 300 000 0000',
    });
    const late = em.create(BeneficiaryContact, {
      company: own,
      beneficiary: supplier,
      type: 'email',
      value: 'z@delta.co',
    });
    const early = em.create(BeneficiaryContact, {
      company: own,
      beneficiary: supplier,
      type: 'email',
      value: 'a@delta.co',
    });
    await em.flush();
    const lote = await seedBatch(api.orm, own, 'Lote USD');
    const document = await seedDocument(api.orm, own, {
      documentNumber: 'FE-77',
      amountCents: 1_234_567_89n,
      isCanceled: true,
    });
    const payable = await seedPayable(api.orm, own, {
      beneficiary: supplier,
      document,
      amountCents: 1_000_01n,
      expirationDate: '2026-12-15',
      concept: 'Licencias',
    });
    Object.assign(await em.findOneOrFail(Payable, { id: payable.id }), {
      balanceCents: 0n,
      status: 'paid',
      filePath: 'https://files.example.co/cxp.pdf',
      projects: [{ code: 'P-1' }],
      costCenter: { code: 'cc-ops' },
    });
    await em.flush();
    const payment = await seedPayment(api.orm, own, {
      payable,
      amountCents: 1_000_01n,
      status: 'processed',
      paymentMethod: 'bank_transfer',
      batch: lote,
      tags: ['Zeta'],
    });
    // Tags show in the order they were put on the payment, not by name.
    const [alfa] = await ensureTags(em, own, ['Alfa']);
    em.create(PaymentTag, {
      company: own,
      payment: em.getReference(Payment, payment.id),
      tag: alfa!,
      createdAt: new Date(Date.now() + 60_000),
    });
    await em.flush();
    await em.nativeUpdate(
      Payment,
      { id: payment.id },
      {
        exchangeRate: '4012.3456',
        exchangeCurrency: 'USD',
        exchangeAmountCents: 401_274_68n,
        filePath: 'https://files.example.co/support.pdf',
        receiptFilePath: 'https://files.example.co/receipt.pdf',
        sourceOfFund: { account: 'Bancolombia 1234' },
        accountingReceipt: { number: 'RC-9', lines: 2 },
        paymentGateway: { provider: 'gateway', status: 'settled' },
        payDate: '2026-12-15',
        erpPaymentReference: 'ERP-PAY-1',
        erpPayment: { id: 'p1' },
        erpPayable: { id: 'cxp1' },
        paidAt: new Date('2026-11-25T14:05:06.789Z'),
        createdAt: new Date('2026-11-24T10:00:00.001Z'),
        updatedAt: new Date('2026-11-25T14:05:07.000Z'),
      },
    );
    const base = {
      reference: payment.id,
      document: {
        reference: document.id,
        type: 'invoice',
        document_number: 'FE-77',
        fiscal_reference: document.fiscalReference,
        origin: 'fiscal_entity',
        amount: 1234567.89,
        amount_currency: 'COP',
        is_canceled: true,
      },
      amount: 1000.01,
      exchange_amount: 401274.68,
      amount_currency: 'COP',
      exchange_currency: 'USD',
      exchange_rate: 4012.3456,
      status: 'processed',
      pay_date: '2026-12-15',
      file_path: 'https://files.example.co/support.pdf',
      receipt_file_path: 'https://files.example.co/receipt.pdf',
      is_archived: false,
      batch: { reference: lote.id, name: 'Lote USD', status: 'released' },
      tags: ['Zeta', 'Alfa'],
      source_of_fund: { account: 'Bancolombia 1234' },
      accounting_receipt: { number: 'RC-9', lines: 2 },
      paid_at: '2026-11-25T14:05:06.789Z',
      payment_method: 'bank_transfer',
      created_at: '2026-11-24T10:00:00.001Z',
      updated_at: '2026-11-25T14:05:07.000Z',
    };
    const beneficiary = {
      reference: supplier.id,
      name: 'Delta S.A.',
      identifier_type: 'NIT',
      identifier_number: '900333003',
      is_deleted: true,
      deleted_at: '2026-11-20T08:30:00.250Z',
    };
    const payableShown = {
      reference: payable.id,
      type: 'supplier',
      status: 'paid',
      amount: 1000.01,
      amount_currency: 'COP',
      file_path: 'https://files.example.co/cxp.pdf',
      balance: 0,
      issue_date: '2026-10-01',
      expiration_date: '2026-12-15',
      concept: 'Licencias',
      origin: 'document',
      projects: [{ code: 'P-1' }],
    };
    // Contacts: e-mails before phones, each by value.
    const contacts = [early, late, phone];
    const { items } = expectStatus(await api.sdk(key).listPayments({ query: {} }), 200);
    expect(items).toStrictEqual([
      {
        ...base,
        beneficiary: {
          ...beneficiary,
          contact_information: contacts.map((contact) => ({ type: contact.type, value: contact.value })),
        },
        email: 'pagos@delta.co',
        payable: payableShown,
      },
    ]);
    expect(expectStatus(await api.sdk(key).getPayment({ params: { reference: payment.id } }), 200)).toStrictEqual({
      ...base,
      beneficiary: {
        ...beneficiary,
        type: 'supplier',
        contact_information: contacts.map((contact) => ({
          reference: contact.id,
          type: contact.type,
          value: contact.value,
        })),
      },
      payable: { ...payableShown, cost_center: { code: 'cc-ops' } },
      payment_gateway: { provider: 'gateway', status: 'settled' },
      advance_balance: null,
      has_erp_payment: true,
      erp_payment_reference: 'ERP-PAY-1',
      is_fiscal_entity: true,
      has_erp_payable: true,
      erp_payable_reference: null,
      erp_payable: { id: 'cxp1' },
      erp_payment: { id: 'p1' },
    });
  });
});

describe('scopes', () => {
  it('lets payments:read read payments and nothing else; payments:write create them; beneficiaries:read neither', async () => {
    const { scopedKey } = await makeCompany(api.orm, { country: 'COL' });
    const read = await scopedKey(['payments:read']);
    const write = await scopedKey(['payments:write']);
    const beneficiariesOnly = await scopedKey(['beneficiaries:read']);
    const body = {
      beneficiary_reference: '00000000-0000-4000-8000-000000000000',
      amount: 10,
      amount_currency: 'COP',
      payable_payload: { expiration_date: '2026-12-01' },
    } as const;
    expect((await list({}, read)).status).toBe(200);
    expect((await api.sdk(read).getPayment({ params: { reference: payments.a!.id } })).status).toBe(404);
    const readPost = await api.sdk(read).createPayment({ body });
    expect(readPost).toMatchObject({
      status: 403,
      body: { code: 'insufficient_scope', required_scope: 'payments:write' },
    });
    // With the write scope the request gets past authorisation (and meets the unknown beneficiary).
    expect(await api.sdk(write).createPayment({ body })).toMatchObject({
      status: 404,
      body: { code: 'beneficiary_not_found' },
    });
    expect(await list({}, write)).toMatchObject({
      status: 403,
      body: { code: 'insufficient_scope', required_scope: 'payments:read' },
    });
    expect((await list({}, beneficiariesOnly)).status).toBe(403);
    expect(await api.sdk(read).listBeneficiaries()).toMatchObject({
      status: 403,
      body: { code: 'insufficient_scope', required_scope: 'beneficiaries:read' },
    });
  });
});

describe('query count', () => {
  it('serves a page of payments in a bounded number of queries, whatever its size', async () => {
    const { orm: counted, queries } = await countingOrm();
    const { company: busy, apiKey: busyKey } = await makeCompany(api.orm, { country: 'COL' });
    const batchOf = await seedBatch(api.orm, busy, 'Lote');
    for (let index = 0; index < 40; index++) {
      const document = await seedDocument(api.orm, busy, { tags: ['x'] });
      const beneficiary = await seedBeneficiary(api.orm, busy, { name: `Proveedor ${index}` });
      const payable = await seedPayable(api.orm, busy, { beneficiary, document, amountCents: 10_00n });
      await seedPayment(api.orm, busy, { payable, amountCents: 10_00n, batch: batchOf, tags: ['x'] });
    }
    const counting = await startTestApi({ orm: counted });
    const countFor = async (pageSize: number, query: ListQuery = {}) => {
      queries.length = 0;
      const body = expectStatus(
        await counting.sdk(busyKey).listPayments({ query: { page_size: pageSize, ...query } }),
        200,
      );
      expect(body.items).toHaveLength(pageSize);
      expect(body.items.every((item) => item.tags.length === 1 && item.document && item.batch)).toBe(true);
      return queries.filter((query) => !query.includes('"api_keys"')).length;
    };
    try {
      await countFor(1);
      const forFive = await countFor(5);
      const forForty = await countFor(40);
      expect(forForty).toBe(forFive);
      expect(forForty).toBeLessThanOrEqual(8);
      // Filters add no per-row queries: tags add one lookup of the tags named, search none (subqueries).
      expect(await countFor(40, { sort_by: 'beneficiary', search: 'proveedor', tags: 'x' })).toBe(forForty + 1);
    } finally {
      await counting.close();
      await counted.close();
    }
  });
});
