import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { seedBankAccount, seedBeneficiary } from '../helpers/payments.ts';
import { jsonReply, startScriptedReceiver, type ScriptedReceiver } from '../helpers/scripted-receiver.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { TEST_DIAN_SOFTWARE } from '../harness/signing-certificates.ts';
import { supportDocumentXml } from '../harness/support-documents.ts';

// Expenses over HTTP and the operator CLI: documentos soporte imported as `expense`, expenses recorded with their
// receipt, approved and paid like any document, and found by the expense filters.

const EXPENSES = '/public/api/v1/documents';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');
const SELLER = { name: 'María Fernanda Rojas', typeCode: '13', number: '52123456', email: 'mafe.rojas@example.co' };

let api: TestApi;
let receiver: ScriptedReceiver;
const dir = tempDir('ap-expenses-');

beforeAll(async () => {
  api = await startTestApi({ config: { paymentPollIntervalMs: 100 } });
  receiver = await startScriptedReceiver([jsonReply(200, { ok: true })]);
});
afterAll(async () => {
  await receiver.stop();
  await api.close();
});

const post = (apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
  api.call('POST', EXPENSES, { apiKey, body, headers });
const get = (apiKey: string, path: string) => api.call('GET', `/public/api/v1${path}`, { apiKey });

/** What the company holds: a refused request must leave these as they were. */
async function holdings(company: Company) {
  const em = companyEm(api.orm, company.id);
  return { documents: await em.count(Document, {}), beneficiaries: await em.count(Beneficiary, {}) };
}

function writeXml(name: string, xml: string): string {
  const path = join(dir, name);
  writeFileSync(path, xml);
  return path;
}

describe('a documento soporte', () => {
  it('is imported as an expense with its document_support, paying the seller, and found with type=expense', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const file = supportDocumentXml({
      documentNumber: 'DS1001',
      seller: SELLER,
      buyer: { name: company.name, typeCode: '31', number: company.taxId!, checkDigit: '5' },
      lines: [{ description: 'Transporte de mercancía Bogotá-Tunja', cents: 350_000_00n }],
      ivaPercent: 19,
      software: TEST_DIAN_SOFTWARE,
    });
    const run = await ops('documents', 'import', '--company', company.id, writeXml('ds-1001.xml', file.xml));
    expect(run.code).toBe(0);
    const reference = run.stdout.documents[0].reference as string;

    const listed = await get(apiKey, '/documents?type=expense&fields=document_support,expenses,beneficiaries');
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(1);
    const [expense] = listed.body.items;
    expect(expense).toMatchObject({
      reference,
      type: 'expense',
      document_number: 'DS1001',
      fiscal_reference: file.cuds,
      amount: 416_500,
      amount_currency: 'COP',
      beneficiary: { name: SELLER.name, identifier_type: 'CC', identifier_number: '52123456' },
      document_support: {
        issue_date: '2026-11-03',
        document_number: 'DS1001',
        cuds: file.cuds,
        cuds_check: 'recomputed',
        seller: { name: SELLER.name, identifier_type: 'CC', identifier_number: '52123456', email: SELLER.email },
        parties_reversed: false,
        resolution: { number: '18760000002', prefix: 'DS', valid_to: '2027-12-31' },
        environment: 'test',
      },
      expenses: {
        origin: 'support_document',
        description: 'Transporte de mercancía Bogotá-Tunja',
        spent_on: '2026-11-03',
        receipt_file_path: expense.file_path,
        receipt_file_name: 'ds-1001.xml',
        reimbursed_person: null,
      },
    });
    expect((await get(apiKey, '/documents?type=invoice')).body.items).toEqual([]);
  });

  it('is refused when its CUDS does not match its composition, and nothing is written', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const right = supportDocumentXml({
      documentNumber: 'DS2002',
      seller: SELLER,
      buyer: { name: company.name, typeCode: '31', number: company.taxId! },
      lines: [{ description: 'Aseo de oficinas', cents: 90_000_00n }],
      software: TEST_DIAN_SOFTWARE,
    });
    const forged = right.xml.replaceAll('90000.00', '95000.00');
    const run = await ops('documents', 'import', '--company', company.id, writeXml('ds-2002.xml', forged));
    expect(run.code).not.toBe(0);
    expect(run.stderr.error.code).toBe('import_failed');
    expect(run.stderr.error.message).toContain('the CUDS does not match the document');
    expect(await holdings(company)).toEqual({ documents: 0, beneficiaries: 0 });
  });
});

describe('POST /documents (an expense)', () => {
  it('records an expense that is approved, paid, and then found with only_expenses (not an invoice payment)', async () => {
    const { company, apiKey } = await makeCompany(api.orm, {
      country: 'COL',
      members: [{ email: 'ana@example.co', name: 'Ana Ruiz' }],
    });
    await subscribeWebhook(company.id, 'document.created', `${receiver.url}/hooks`, 'expenses-secret');
    const invoice = await seedDocument(api.orm, company, { documentNumber: 'FE-1', payments: 1 });

    const created = await post(apiKey, {
      reimbursed_person: { name: 'Carlos Gómez', identifier_type: 'cc', identifier_number: '1020304050' },
      amount: '150000.50',
      amount_currency: 'COP',
      issue_date: '2026-11-02',
      due_date: '2026-11-20',
      category: 'Viáticos',
      cost_center: 'cc-ops',
      description: 'Taxi y alimentación, visita a Medellín',
      receipt_url: 'https://files.example.com/recibos/taxi-77.pdf',
      acting_user_email: 'Ana@example.co',
    });
    expect(created.status).toBe(201);
    const reference = created.body.reference as string;
    expect(created.body).toMatchObject({
      type: 'expense',
      document_number: expect.stringMatching(/^EXP-[0-9A-F]{12}$/),
      amount: 150_000.5,
      amount_currency: 'COP',
      approval_status: 'pending',
      fiscal_reference: null,
      document_support: null,
      created_by: { source: 'integration', user: 'ana@example.co' },
      beneficiary: { name: 'Carlos Gómez', type: 'employee', identifier_type: 'CC', identifier_number: '1020304050' },
      expenses: {
        origin: 'manual',
        category: 'Viáticos',
        cost_center: 'cc-ops',
        description: 'Taxi y alimentación, visita a Medellín',
        spent_on: '2026-11-02',
        receipt_file_path: 'https://files.example.com/recibos/taxi-77.pdf',
        receipt_file_name: 'taxi-77.pdf',
        reimbursed_person: {
          name: 'Carlos Gómez',
          identifier_type: 'CC',
          identifier_number: '1020304050',
          email: null,
        },
      },
      line_items: [expect.objectContaining({ name: 'Taxi y alimentación, visita a Medellín', total: 150_000.5 })],
      logs: expect.arrayContaining([
        expect.objectContaining({
          event: 'document.created',
          actor: { type: 'user', name: 'Ana Ruiz', email: 'ana@example.co', source: 'integration' },
        }),
      ]),
    });
    // Announced as an imported document is.
    await expect
      .poll(() =>
        receiver.received.map((request) => JSON.parse(request.body)).find((b) => b.data?.reference === reference),
      )
      .toMatchObject({ event: 'document.created', data: { type: 'expense', beneficiary: { name: 'Carlos Gómez' } } });

    const approved = await api.call('POST', `/public/api/v1/documents/${reference}/approve`, { apiKey });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ approval_status: 'approved', payment_status: 'pending' });
    expect(approved.body.payables).toEqual([
      expect.objectContaining({
        amount: 150_000.5,
        expiration_date: '2026-11-20',
        status: 'pending',
        type: 'supplier',
      }),
    ]);

    const person = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, { identifierNumber: '1020304050' });
    await seedBankAccount(api.orm, company, person, { bankCode: '1007', accountNumber: '40012345678' });
    const paid = await api.call('POST', '/public/api/v1/payments', {
      apiKey,
      body: {
        payable_reference: approved.body.payables[0].reference,
        amount: 150_000.5,
        amount_currency: 'COP',
        pay_date: '2026-01-01',
      },
    });
    expect(paid.status).toBe(201);
    const payment = paid.body.reference as string;
    await expect
      .poll(async () => (await get(apiKey, `/payments/${payment}`)).body.status, { timeout: 30_000 })
      .toBe('processed');

    const expensePayments = await get(apiKey, '/payments?only_expenses=true');
    expect(expensePayments.body.items.map((item: { reference: string }) => item.reference)).toEqual([payment]);
    expect(expensePayments.body.items[0].document).toMatchObject({ reference, type: 'expense' });
    const all = await get(apiKey, '/payments');
    expect(all.body.items.map((item: { document: { reference: string } }) => item.document.reference).sort()).toEqual(
      [invoice.id, reference].sort(),
    );
    expect((await get(apiKey, `/documents/${reference}`)).body).toMatchObject({ payment_status: 'paid' });
  });

  it('takes the receipt as an uploaded file, stored and served to the company', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const supplier = await seedBeneficiary(api.orm, company, { name: 'Papelería La 14' });
    const form = new FormData();
    form.append(
      'data',
      JSON.stringify({
        beneficiary_reference: supplier.id,
        amount: 42_300,
        amount_currency: 'COP',
        issue_date: '2026-11-04',
        category: 'Papelería',
        document_number: 'T-8812',
      }),
    );
    form.append('receipt', new Blob([PDF], { type: 'application/pdf' }), 'tiquete.pdf');
    const created = await api.call('POST', EXPENSES, { apiKey, rawBody: form });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      document_number: 'T-8812',
      beneficiary: { reference: supplier.id },
      expenses: { receipt_file_name: 'tiquete.pdf', reimbursed_person: null, spent_on: '2026-11-04' },
    });
    const receipt = created.body.expenses.receipt_file_path as string;
    expect(receipt).toBe(
      `${api.url}/public/api/v1/files/${company.id}/documents/${created.body.reference}/receipt.pdf`,
    );
    const served = await fetch(receipt, { headers: { 'api-key': apiKey } });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PDF);
  });

  it('answers a repeated Idempotency-Key with the expense it recorded, written once', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const supplier = await seedBeneficiary(api.orm, company, { name: 'Parqueadero Central' });
    const body = {
      beneficiary_reference: supplier.id,
      amount: 9_000,
      amount_currency: 'COP',
      issue_date: '2026-11-05',
    };
    const first = await post(apiKey, body, { 'idempotency-key': 'parking-2026-11-05' });
    const again = await post(apiKey, body, { 'idempotency-key': 'parking-2026-11-05' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.reference).toBe(first.body.reference);
    expect((await holdings(company)).documents).toBe(1);
  });

  it('refuses bad input with a stable code and message, writing nothing', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const other = await makeCompany(api.orm, { country: 'COL' });
    const foreign = await seedBeneficiary(api.orm, other.company, { name: 'Proveedor ajeno' });
    const person = { name: 'Luisa Prada', identifier_type: 'CC', identifier_number: '79111222' };
    const valid = { reimbursed_person: person, amount: 10_000, amount_currency: 'COP', issue_date: '2026-11-06' };
    const validation: [Record<string, unknown>, string][] = [
      [{ amount: 0 }, 'amount'],
      [{ amount: -25 }, 'amount'],
      [{ amount: '12.345' }, 'amount'],
      [{ amount_currency: 'GBP' }, 'amount_currency'],
      [{ due_date: '2026-11-01' }, 'due_date'],
      [{ receipt_url: 'file:///etc/passwd' }, 'receipt_url'],
      [{ receipt_url: 'http://127.0.0.1/recibo.pdf' }, 'receipt_url'],
      [{ receipt_url: 'https://10.20.30.40/recibo.pdf' }, 'receipt_url'],
      [{ receipt_url: 'https://localhost/recibo.pdf' }, 'receipt_url'],
      [{ reimbursed_person: undefined }, 'beneficiary_reference'],
      [{ type: 'invoice' }, 'type'],
    ];
    for (const [change, field] of validation) {
      const refused = await post(apiKey, { ...valid, ...change });
      expect(refused.status, JSON.stringify(change)).toBe(400);
      expect(refused.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(refused.body.error.details), JSON.stringify(change)).toEqual([field]);
    }
    const loopback = await post(apiKey, { ...valid, receipt_url: 'http://127.0.0.1/recibo.pdf' });
    expect(loopback.body.error.details.receipt_url[0]).toMatch(/public address.*127\.0\.0\.0\/8/);

    const unknown = await post(apiKey, { ...valid, beneficiary_reference: '0190a0a0-0000-7000-8000-000000000000' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({
      code: 'beneficiary_not_found',
      message: 'No beneficiary of the company has this reference',
    });
    expect((await post(apiKey, { ...valid, beneficiary_reference: foreign.id })).body.code).toBe(
      'beneficiary_not_found',
    );
    const stranger = await post(apiKey, { ...valid, acting_user_email: 'nobody@example.co' });
    expect(stranger.status).toBe(400);
    expect(stranger.body.code).toBe('acting_user_not_found_in_company');

    const upload = async (bytes: Uint8Array<ArrayBuffer>, name: string) => {
      const form = new FormData();
      form.append('data', JSON.stringify(valid));
      form.append('receipt', new Blob([bytes]), name);
      return api.call('POST', EXPENSES, { apiKey, rawBody: form });
    };
    const large = new Uint8Array(5 * 1024 * 1024 + 1);
    large.set(PDF);
    const tooLarge = await upload(large, 'grande.pdf');
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.details).toEqual({ receipt: ['The file must be at most 5 MB'] });
    const notPdf = await upload(new TextEncoder().encode('MZ not a receipt'), 'recibo.pdf');
    expect(notPdf.status).toBe(400);
    expect(notPdf.body.error.details.receipt[0]).toMatch(/pdf, jpg, jpeg or png/);

    expect(await holdings(company)).toEqual({ documents: 0, beneficiaries: 0 });
  });

  it("answers 404 for another company's expense", async () => {
    const owner = await makeCompany(api.orm, { country: 'COL' });
    const intruder = await makeCompany(api.orm, { country: 'COL' });
    const supplier = await seedBeneficiary(api.orm, owner.company, { name: 'Restaurante El Cielo' });
    const created = await post(owner.apiKey, {
      beneficiary_reference: supplier.id,
      amount: 230_000,
      amount_currency: 'COP',
      issue_date: '2026-11-07',
    });
    const path = `/documents/${created.body.reference}`;
    expect((await get(owner.apiKey, path)).status).toBe(200);
    const seen = await get(intruder.apiKey, path);
    expect(seen.status).toBe(404);
    expect(seen.body.code).toBe('document_not_found');
    const approve = await api.call('POST', `/public/api/v1${path}/approve`, { apiKey: intruder.apiKey });
    expect(approve.status).toBe(404);
    expect((await get(intruder.apiKey, '/documents?type=expense')).body.items).toEqual([]);
    expect((await get(owner.apiKey, path)).body.approval_status).toBe('pending');
  });
});

describe('ops expenses create', () => {
  it('records an expense with its receipt file, logged as the operator', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const supplier = await seedBeneficiary(api.orm, company, { name: 'Ferretería El Tornillo' });
    const receipt = join(dir, 'factura-ferreteria.pdf');
    writeFileSync(receipt, PDF);
    const run = await ops(
      'expenses',
      'create',
      '--company',
      company.id,
      '--beneficiary',
      supplier.id,
      '--amount',
      '80500.25',
      '--currency',
      'cop',
      '--issue-date',
      '2026-11-08',
      '--category',
      'Mantenimiento',
      '--receipt-file',
      receipt,
    );
    expect(run.code).toBe(0);
    expect(run.stdout).toMatchObject({
      type: 'expense',
      amount: '80500.25',
      amount_currency: 'COP',
      beneficiary_reference: supplier.id,
    });
    const shown = await get(apiKey, `/documents/${run.stdout.reference}`);
    expect(shown.body).toMatchObject({
      type: 'expense',
      created_by: { source: 'operator', user: null },
      expenses: { category: 'Mantenimiento', receipt_file_name: 'factura-ferreteria.pdf' },
      logs: expect.arrayContaining([
        expect.objectContaining({
          event: 'document.created',
          actor: { type: 'system', source: 'operator', name: 'operator' },
        }),
      ]),
    });
    const served = await fetch(shown.body.expenses.receipt_file_path, { headers: { 'api-key': apiKey } });
    expect(Buffer.from(await served.arrayBuffer())).toEqual(PDF);
  });

  it('refuses bad input with its code and writes nothing', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const base = ['expenses', 'create', '--company', company.id, '--issue-date', '2026-11-09'];
    const person = [
      '--reimbursed-name',
      'Luisa Prada',
      '--reimbursed-id-type',
      'CC',
      '--reimbursed-id-number',
      '79111222',
    ];
    const cases: [string[], string][] = [
      [['--amount=-5', '--currency', 'COP', ...person], 'invalid_amount'],
      [['--amount', '0', '--currency', 'COP', ...person], 'invalid_amount'],
      [['--amount', '10', '--currency', 'GBP', ...person], 'unsupported_currency'],
      [
        ['--amount', '10', '--currency', 'COP', ...person, '--receipt-url', 'http://192.168.1.10/r.pdf'],
        'receipt_not_public',
      ],
      [
        ['--amount', '10', '--currency', 'COP', '--beneficiary', '0190a0a0-0000-7000-8000-000000000000'],
        'beneficiary_not_found',
      ],
    ];
    for (const [flags, code] of cases) {
      const run = await ops(...base, ...flags);
      expect(run.code, flags.join(' ')).not.toBe(0);
      expect(run.stderr.error.code, flags.join(' ')).toBe(code);
    }
    expect(await holdings(company)).toEqual({ documents: 0, beneficiaries: 0 });
  });
});
