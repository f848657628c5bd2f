// Payees through the API: an integrator creates a beneficiary, reads it, and adds its bank accounts, whose validation
// starts by itself; a payment waiting for a validated account goes once the account added this way is validated.
import {
  expectStatus,
  type Client,
  type CreateBeneficiary,
  type CreateBeneficiaryBankAccount,
  type Payment,
} from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { IdempotencyKey } from '../../db/idempotency/idempotency-key.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { todayIn } from '../../services/payments/schedule.ts';
import { makeCompany } from '../helpers/companies.ts';
import { clabeOf, gatewayTransfers, seedBeneficiary } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

type Scoped = Awaited<ReturnType<typeof makeCompany>>;
type NewBeneficiary = CreateBeneficiary['request']['body'];
type NewAccount = CreateBeneficiaryBankAccount['request']['body'];

let api: TestApi;
let colombia: Scoped;
let mexico: Scoped;
/** Digits unique to this run, so that the suite's shared validation service and gateway see this file's accounts alone. */
const run = String(process.pid).padStart(7, '0').slice(-7);
let accounts = 0;
/** A Colombian account number no other test uses. */
const accountNumber = () => `6${run}${String(++accounts).padStart(3, '0')}`;

beforeAll(async () => {
  api = await startTestApi({ config: { bankValidationPollIntervalMs: 100, paymentPollIntervalMs: 100 } });
  colombia = await makeCompany(api.orm, { country: 'COL' });
  mexico = await makeCompany(api.orm, { country: 'MEX' });
});
afterAll(() => api.close());

const sdk = (key: string): Client => api.sdk(key);
const create = (apiKey: string, body: NewBeneficiary, idempotencyKey?: string) =>
  sdk(apiKey).createBeneficiary({ body, ...(idempotencyKey ? { idempotencyKey } : {}) });
const created = async (apiKey: string, body: NewBeneficiary) => expectStatus(await create(apiKey, body), 201);
const read = (apiKey: string, reference: string) => sdk(apiKey).getBeneficiary({ params: { reference } });
const addAccount = (apiKey: string, reference: string, body: NewAccount, idempotencyKey?: string) =>
  sdk(apiKey).createBeneficiaryBankAccount({
    params: { reference },
    body,
    ...(idempotencyKey ? { idempotencyKey } : {}),
  });

const countBeneficiaries = (company: Company) => companyEm(api.orm, company.id).count(Beneficiary, {});
const countAccounts = (company: Company, beneficiary: string) =>
  companyEm(api.orm, company.id).count(BeneficiaryBankAccount, { beneficiary });
const storedAccount = (company: Company, id: string) =>
  companyEm(api.orm, company.id).findOneOrFail(BeneficiaryBankAccount, { id });

/** The account's validation status as stored, once it is the one expected. */
async function reaches(company: Company, accountId: string, status: string) {
  await expect
    .poll(async () => (await storedAccount(company, accountId)).validationStatus, { timeout: 30_000, interval: 100 })
    .toBe(status);
}

describe('POST /beneficiaries and GET /beneficiaries/{reference}', () => {
  it('creates a supplier with its contacts, written as imports write its identifier, and reads it back', async () => {
    const response = await create(colombia.apiKey, {
      name: 'Servicios Andinos S.A.S.',
      identifier_type: 'nit',
      identifier_number: '900.123.456-8',
      email: 'pagos@andinos.co',
      phone_number: '+57 601 555 0101',
      payment_terms: 30,
      fiscal_address: 'Cra 7 # 71-21, Bogotá',
      contact_information: [
        { type: 'email', value: 'cartera@andinos.co' },
        { type: 'email', value: 'pagos@andinos.co' },
      ],
    });
    expect(response.status).toBe(201);
    const body = expectStatus(response, 201);
    expect(body).toEqual({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Servicios Andinos S.A.S.',
      type: 'supplier',
      email: 'pagos@andinos.co',
      phone_number: '+57 601 555 0101',
      identifier_type: 'NIT',
      identifier_number: '900123456',
      payment_terms: 30,
      fiscal_address: 'Cra 7 # 71-21, Bogotá',
      contact_information: expect.any(Array),
      bank_accounts: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const contacts = body.contact_information.map((contact) => `${contact.type} ${contact.value}`).sort();
    expect(contacts).toEqual(['email cartera@andinos.co', 'email pagos@andinos.co', 'phone +57 601 555 0101']);
    expect(expectStatus(await read(colombia.apiKey, body.reference), 200)).toEqual(body);
  });

  it('creates an employee, and a Mexican supplier by its RFC', async () => {
    const employee = await created(colombia.apiKey, {
      name: 'Laura Méndez',
      type: 'employee',
      identifier_type: 'CC',
      identifier_number: '1.020.304.050',
    });
    expect(employee).toMatchObject({
      type: 'employee',
      identifier_type: 'CC',
      identifier_number: '1020304050',
      email: null,
      phone_number: null,
      payment_terms: null,
      fiscal_address: null,
      contact_information: [],
    });
    const supplier = await created(mexico.apiKey, {
      name: 'Eku Distribuciones SA de CV',
      identifier_type: 'rfc',
      identifier_number: 'eku9003173c9',
    });
    expect(supplier).toMatchObject({ type: 'supplier', identifier_type: 'RFC', identifier_number: 'EKU9003173C9' });
  });

  it('answers 409 beneficiary_exists with the reference of the beneficiary that has the identifier', async () => {
    const first = await created(colombia.apiKey, {
      name: 'Ferretería La Llave',
      identifier_type: 'NIT',
      identifier_number: '860034313',
    });
    const before = await countBeneficiaries(colombia.company);
    // The same NIT, written otherwise (with its check digit, dots): the same identifier.
    const again = await create(colombia.apiKey, {
      name: 'Ferretería La Llave (otra)',
      identifier_type: 'nit',
      identifier_number: '860.034.313-7',
    });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({
      code: 'beneficiary_exists',
      message: expect.stringContaining('860034313'),
      reference: first.reference,
    });
    expect(await countBeneficiaries(colombia.company)).toBe(before);
  });

  it('refuses a malformed identifier, or a type of another country, with invalid_identifier, writing nothing', async () => {
    const cases: [Scoped, string, string, 'identifier_type' | 'identifier_number', RegExp][] = [
      [colombia, 'NIT', '90012345A', 'identifier_number', /digits/],
      [colombia, 'NIT', '900123456-7', 'identifier_number', /check digit of NIT 900123456 is 8, not 7/],
      [colombia, 'NIT', '0000000', 'identifier_number', /zeros/],
      [colombia, 'CC', '12a45', 'identifier_number', /digits/],
      [colombia, 'RFC', 'EKU9003173C9', 'identifier_type', /NIT, CC/],
      [colombia, 'DNI', '12345678', 'identifier_type', /NIT, CC/],
      [mexico, 'RFC', 'ABC12', 'identifier_number', /RFC/],
      [mexico, 'RFC', 'GODE561331GR8', 'identifier_number', /RFC/],
      [mexico, 'RFC', 'EKU-9003-173C', 'identifier_number', /RFC/],
      [mexico, 'NIT', '900123456', 'identifier_type', /RFC/],
    ];
    for (const [company, type, number, field, message] of cases) {
      const before = await countBeneficiaries(company.company);
      const response = await create(company.apiKey, {
        name: 'Identificación errada',
        identifier_type: type,
        identifier_number: number,
      });
      expect(response.status, `${type} ${number}`).toBe(422);
      expect(response.body, `${type} ${number}`).toEqual({
        code: 'invalid_identifier',
        message: expect.stringMatching(message),
        field,
      });
      expect(await countBeneficiaries(company.company)).toBe(before);
    }
  });

  it('refuses what the schema does not take with the validation envelope', async () => {
    const call = (body: unknown) => api.call('POST', '/public/api/v1/beneficiaries', { apiKey: colombia.apiKey, body });
    const valid = { name: 'Válido', identifier_type: 'CC', identifier_number: '52123456' };
    for (const [body, field] of [
      [{ ...valid, name: '  ' }, 'name'],
      [{ ...valid, identifier_number: undefined }, 'identifier_number'],
      [{ ...valid, type: 'contractor' }, 'type'],
      [{ ...valid, email: 'no-es-correo' }, 'email'],
      [{ ...valid, payment_terms: -1 }, 'payment_terms'],
      [{ ...valid, contact_information: [{ type: 'email', value: 'tampoco' }] }, 'contact_information.0.value'],
      [{ ...valid, contact_information: [{ type: 'fax', value: '6015550101' }] }, 'contact_information.0.type'],
    ] as const) {
      const response = await call(body);
      expect(response.status, field).toBe(400);
      expect(response.body.error.details, field).toHaveProperty([field]);
    }
    expect((await read(colombia.apiKey, 'abc')).status).toBe(400);
  });

  it("answers 404 for an unknown or deleted beneficiary, and keeps a deleted one's identifier (422 beneficiary_deleted)", async () => {
    const unknown = await read(colombia.apiKey, '00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ code: 'beneficiary_not_found', message: expect.any(String) });
    const gone = await seedBeneficiary(api.orm, colombia.company, {
      name: 'Proveedor Retirado',
      identifierNumber: '811009788',
    });
    await companyEm(api.orm, colombia.company.id).nativeUpdate(
      Beneficiary,
      { id: gone.id },
      { isDeleted: true, deletedAt: new Date() },
    );
    expect((await read(colombia.apiKey, gone.id)).status).toBe(404);
    const reused = await create(colombia.apiKey, {
      name: 'Proveedor Nuevo',
      identifier_type: 'NIT',
      identifier_number: '811009788',
    });
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ code: 'beneficiary_deleted', message: expect.any(String), reference: gone.id });
    const account = await addAccount(colombia.apiKey, gone.id, {
      bank_reference: bankReference('COL', '1007'),
      account_number: accountNumber(),
      account_type: 'savings',
    });
    expect(account.status).toBe(422);
    expect(account.body).toMatchObject({ code: 'beneficiary_deleted' });
    expect(await countAccounts(colombia.company, gone.id)).toBe(0);
  });

  it('answers a repeated Idempotency-Key with the same 201, written once, even after a lost answer', async () => {
    const body: NewBeneficiary = { name: 'Idempotente S.A.S.', identifier_type: 'NIT', identifier_number: '830045612' };
    const key = `beneficiary-${run}`;
    const first = await create(colombia.apiKey, body, key);
    const second = await create(colombia.apiKey, body, key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const rows = () =>
      companyEm(api.orm, colombia.company.id).count(Beneficiary, {
        identifierType: 'NIT',
        identifierNumber: '830045612',
      });
    expect(await rows()).toBe(1);
    const other = await create(colombia.apiKey, { ...body, name: 'Otro nombre' }, key);
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'idempotency_key_reused' });

    // A 5xx releases the key: the retry runs again, and finds the beneficiary its first attempt wrote.
    await companyEm(api.orm, colombia.company.id).nativeDelete(IdempotencyKey, { key });
    const retried = await create(colombia.apiKey, body, key);
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(expectStatus(retried, 201).reference).toBe(expectStatus(first, 201).reference);
    expect(await rows()).toBe(1);
  });
});

describe('POST /beneficiaries/{reference}/bank-accounts', () => {
  let supplier: { reference: string; name: string };
  beforeAll(async () => {
    supplier = await created(colombia.apiKey, {
      name: 'Lácteos La Sabana S.A.S.',
      identifier_type: 'NIT',
      identifier_number: '900765432',
    });
  });

  it('adds an account held by the beneficiary, pending, and validates it through its own workflow', async () => {
    const number = accountNumber();
    const response = await addAccount(colombia.apiKey, supplier.reference, {
      bank_reference: bankReference('COL', '1007'),
      account_number: `${number.slice(0, 4)} ${number.slice(4)}`,
      account_type: 'savings',
    });
    expect(response.status).toBe(201);
    const account = expectStatus(response, 201);
    expect(account).toEqual({
      reference: expect.stringMatching(/^[0-9a-f-]{36}$/),
      bank_reference: bankReference('COL', '1007'),
      bank_name: 'Bancolombia',
      account_number: number,
      account_type: 'savings',
      validation_status: 'pending',
      account_recipient_name: 'Lácteos La Sabana S.A.S.',
      account_recipient_document_number: '900765432',
      account_recipient_document_type: 'NIT',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await reaches(colombia.company, account.reference, 'validated');
    expect(await api.client.workflow.getHandle(`bank-account-validation/${account.reference}/1`).result()).toBe(
      'validated',
    );
    expect(expectStatus(await read(colombia.apiKey, supplier.reference), 200).bank_accounts).toEqual([
      {
        reference: account.reference,
        bank_reference: bankReference('COL', '1007'),
        bank_name: 'Bancolombia',
        account_number: number,
      },
    ]);

    // Another holder, named.
    const named = await addAccount(colombia.apiKey, supplier.reference, {
      bank_reference: bankReference('COL', '1051'),
      account_number: accountNumber(),
      account_type: 'checking',
      account_recipient_name: 'Juan Pérez',
      account_recipient_document_type: 'cc',
      account_recipient_document_number: '79123456',
    });
    expect(expectStatus(named, 201)).toMatchObject({
      bank_name: 'Banco Davivienda',
      account_type: 'checking',
      account_recipient_name: 'Juan Pérez',
      account_recipient_document_type: 'CC',
      account_recipient_document_number: '79123456',
    });
  });

  it('takes a CLABE of the chosen bank in Mexico', async () => {
    const beneficiary = await created(mexico.apiKey, {
      name: 'Abarrotes La Esperanza SA de CV',
      identifier_type: 'RFC',
      identifier_number: 'AES010203AB1',
    });
    const clabe = clabeOf('072', `7${run}`);
    const response = await addAccount(mexico.apiKey, beneficiary.reference, {
      bank_reference: bankReference('MEX', '072'),
      account_number: clabe,
      account_type: 'checking',
    });
    expect(expectStatus(response, 201)).toMatchObject({
      bank_name: 'Banorte',
      account_number: clabe,
      account_recipient_document_type: 'RFC',
      account_recipient_document_number: 'AES010203AB1',
    });
    await reaches(mexico.company, expectStatus(response, 201).reference, 'validated');
  });

  it("refuses another country's bank, an unknown bank, a malformed number and a duplicate, writing nothing", async () => {
    const before = await countAccounts(colombia.company, supplier.reference);
    const mexican = await addAccount(colombia.apiKey, supplier.reference, {
      bank_reference: bankReference('MEX', '012'),
      account_number: clabeOf('012', `8${run}`),
      account_type: 'checking',
    });
    expect(mexican.status).toBe(422);
    expect(mexican.body).toEqual({ code: 'bank_of_another_country', message: expect.stringContaining('MEX') });
    const colombian = await addAccount(
      mexico.apiKey,
      (
        await created(mexico.apiKey, {
          name: 'Papelera del Norte SA de CV',
          identifier_type: 'RFC',
          identifier_number: 'PNO990101XY2',
        })
      ).reference,
      {
        bank_reference: bankReference('COL', '1007'),
        account_number: accountNumber(),
        account_type: 'savings',
      },
    );
    expect(colombian.status).toBe(422);
    expect(colombian.body).toMatchObject({ code: 'bank_of_another_country' });

    const details = async (body: NewAccount) =>
      expectStatus(await addAccount(colombia.apiKey, supplier.reference, body), 400).error.details;
    const bank = bankReference('COL', '1007');
    expect(
      await details({
        bank_reference: '00000000-0000-4000-8000-000000000000',
        account_number: accountNumber(),
        account_type: 'savings',
      }),
    ).toHaveProperty('bank_reference');
    expect(await details({ bank_reference: bank, account_number: '12345', account_type: 'savings' })).toEqual({
      account_number: ['Must have 6 to 20 digits'],
    });
    expect(
      await details({
        bank_reference: bankReference('COL', '1507'),
        account_number: '4001234567',
        account_type: 'savings',
      }),
    ).toEqual({ account_number: [expect.stringContaining('mobile number')] });
    const missing = await api.call('POST', `/public/api/v1/beneficiaries/${supplier.reference}/bank-accounts`, {
      apiKey: colombia.apiKey,
      body: { bank_reference: bank, account_number: accountNumber() },
    });
    expect(missing.body.error.details).toHaveProperty('account_type');
    expect(await countAccounts(colombia.company, supplier.reference)).toBe(before);

    const number = accountNumber();
    const first = expectStatus(
      await addAccount(colombia.apiKey, supplier.reference, {
        bank_reference: bank,
        account_number: number,
        account_type: 'savings',
      }),
      201,
    );
    const twice = await addAccount(colombia.apiKey, supplier.reference, {
      bank_reference: bank,
      account_number: number,
      account_type: 'checking',
    });
    expect(twice.status).toBe(409);
    expect(twice.body).toEqual({
      code: 'bank_account_exists',
      message: expect.any(String),
      reference: first.reference,
    });
    expect(await countAccounts(colombia.company, supplier.reference)).toBe(before + 1);
  });

  it('answers a repeated Idempotency-Key with the same 201 and one account; a retry after a lost answer too', async () => {
    const body: NewAccount = {
      bank_reference: bankReference('COL', '1007'),
      account_number: accountNumber(),
      account_type: 'savings',
    };
    const key = `bank-account-${run}`;
    const before = await countAccounts(colombia.company, supplier.reference);
    const first = await addAccount(colombia.apiKey, supplier.reference, body, key);
    const second = await addAccount(colombia.apiKey, supplier.reference, body, key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await countAccounts(colombia.company, supplier.reference)).toBe(before + 1);

    await companyEm(api.orm, colombia.company.id).nativeDelete(IdempotencyKey, { key });
    const retried = await addAccount(colombia.apiKey, supplier.reference, body, key);
    expect(retried.status).toBe(201);
    const reference = expectStatus(first, 201).reference;
    expect(expectStatus(retried, 201).reference).toBe(reference);
    expect(await countAccounts(colombia.company, supplier.reference)).toBe(before + 1);
    await reaches(colombia.company, reference, 'validated');
    expect((await storedAccount(colombia.company, reference)).validationAttempt).toBe(1);
  });

  it('gives the person an expense reimburses (POST /documents) an account', async () => {
    const expense = await api.call('POST', '/public/api/v1/documents', {
      apiKey: colombia.apiKey,
      body: {
        reimbursed_person: { name: 'Carlos Gómez', identifier_type: 'CC', identifier_number: '1020304999' },
        amount: 85_000,
        amount_currency: 'COP',
        issue_date: todayIn('COL'),
      },
    });
    expect(expense.status).toBe(201);
    const listed = expectStatus(await sdk(colombia.apiKey).listBeneficiaries({ query: { search: '1020304999' } }), 200);
    expect(listed.items).toHaveLength(1);
    const person = listed.items[0]!;
    expect(person).toMatchObject({ type: 'employee', bank_accounts: [] });
    const account = await addAccount(colombia.apiKey, person.reference, {
      bank_reference: bankReference('COL', '1007'),
      account_number: accountNumber(),
      account_type: 'savings',
    });
    expect(expectStatus(account, 201)).toMatchObject({
      account_recipient_name: 'Carlos Gómez',
      account_recipient_document_type: 'CC',
      account_recipient_document_number: '1020304999',
    });
  });
});

describe('scopes and companies', () => {
  it('needs beneficiaries:write to create and to add or change accounts, and beneficiaries:read to read', async () => {
    const reader = await colombia.scopedKey(['beneficiaries:read']);
    const writer = await colombia.scopedKey(['beneficiaries:write']);
    const body: NewBeneficiary = { name: 'Alcance S.A.S.', identifier_type: 'NIT', identifier_number: '901555444' };
    const refused = await create(reader, body);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'beneficiaries:write' });
    const payments = await colombia.scopedKey(['payments:read', 'payments:write']);
    expect((await create(payments, body)).status).toBe(403);
    const written = () =>
      companyEm(api.orm, colombia.company.id).count(Beneficiary, { identifierNumber: body.identifier_number });
    expect(await written()).toBe(0);

    const beneficiary = await created(writer, body);
    expect(await written()).toBe(1);
    const account = {
      bank_reference: bankReference('COL', '1007'),
      account_number: accountNumber(),
      account_type: 'savings' as const,
    };
    const noAccount = await addAccount(reader, beneficiary.reference, account);
    expect(noAccount.status).toBe(403);
    expect(noAccount.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'beneficiaries:write' });
    expect(await countAccounts(colombia.company, beneficiary.reference)).toBe(0);
    const added = expectStatus(await addAccount(writer, beneficiary.reference, account), 201);
    const changed = await sdk(writer).updateBeneficiaryBankAccount({
      params: { reference: beneficiary.reference, bank_account_reference: added.reference },
      body: { account_type: 'checking' },
    });
    expect(expectStatus(changed, 200).account_type).toBe('checking');

    const notReading = await read(writer, beneficiary.reference);
    expect(notReading.status).toBe(403);
    expect(notReading.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'beneficiaries:read' });
    expect(expectStatus(await read(reader, beneficiary.reference), 200).reference).toBe(beneficiary.reference);
  });

  it("answers 404 to another company for a beneficiary's reference, on GET and on POST bank-accounts", async () => {
    const owned = await created(colombia.apiKey, {
      name: 'Solo Mío S.A.S.',
      identifier_type: 'NIT',
      identifier_number: '900999111',
    });
    const other = await makeCompany(api.orm, { country: 'COL' });
    for (const intruder of [other, mexico]) {
      const read404 = await read(intruder.apiKey, owned.reference);
      expect(read404.status).toBe(404);
      expect(read404.body).toMatchObject({ code: 'beneficiary_not_found' });
      const add404 = await addAccount(intruder.apiKey, owned.reference, {
        bank_reference: bankReference(intruder.company.country, intruder === mexico ? '072' : '1007'),
        account_number: intruder === mexico ? clabeOf('072', `9${run}`) : accountNumber(),
        account_type: 'savings',
      });
      expect(add404.status).toBe(404);
      expect(add404.body).toMatchObject({ code: 'beneficiary_not_found' });
    }
    expect(await countAccounts(colombia.company, owned.reference)).toBe(0);
    // The identifier belongs to the company: another company may have a beneficiary with it.
    expect(
      (await create(other.apiKey, { name: 'Solo Mío S.A.S.', identifier_type: 'NIT', identifier_number: '900999111' }))
        .status,
    ).toBe(201);
  });
});

describe('a payment waiting for a validated account', () => {
  /** A day in Bogotá, `offset` days from today. */
  function day(offset: number): string {
    const date = new Date(`${todayIn('COL')}T00:00:00Z`);
    date.setUTCDate(date.getUTCDate() + offset);
    return date.toISOString().slice(0, 10);
  }

  it('goes once the account the integrator added is validated, with no operator command', async () => {
    // One integrator's key, scoped to what it does.
    const key = await colombia.scopedKey([
      'beneficiaries:write',
      'beneficiaries:read',
      'payments:write',
      'payments:read',
    ]);
    const beneficiary = await created(key, {
      name: 'Transportes Sin Cuenta S.A.S.',
      identifier_type: 'NIT',
      identifier_number: '900555123',
    });
    const payment = expectStatus(
      await sdk(key).createPayment({
        body: {
          beneficiary_reference: beneficiary.reference,
          amount: 480_000,
          amount_currency: 'COP',
          payable_payload: { expiration_date: day(-1), concept: 'Fletes' },
        },
      }),
      201,
    );
    const detail = async () =>
      expectStatus(await sdk(key).getPayment({ params: { reference: payment.reference } }), 200);
    let seen: Payment | undefined;
    const until = async (test: (current: Payment) => boolean) => {
      await expect
        .poll(
          async () => {
            seen = await detail();
            return test(seen);
          },
          { timeout: 30_000, interval: 100 },
        )
        .toBe(true);
      return seen!;
    };
    const waiting = await until((current) => current.payment_gateway?.status === 'waiting_for_validated_account');
    expect(waiting.status).toBe('pending');
    expect(waiting.payment_gateway?.reason).toContain('has no bank account');
    expect(await gatewayTransfers([payment.reference])).toEqual([]);

    const number = accountNumber();
    const account = await addAccount(key, beneficiary.reference, {
      bank_reference: bankReference('COL', '1007'),
      account_number: number,
      account_type: 'savings',
    });
    expect(expectStatus(account, 201).validation_status).toBe('pending');

    const paid = await until((current) => current.status === 'processed');
    expect(paid.payment_gateway).toMatchObject({ status: 'settled', transfer_id: expect.stringMatching(/^trf_/) });
    const transfers = await gatewayTransfers([payment.reference]);
    expect(transfers).toHaveLength(1);
    expect(transfers[0]!.account).toMatchObject({ account_number: number, bank_code: '1007' });
    expect(await api.client.workflow.getHandle(`payment/${payment.reference}`).result()).toBe('processed');
  });
});
