import {
  expectStatus,
  type BeneficiaryList,
  type ListBeneficiaries,
  type UpdateBeneficiaryBankAccount,
} from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { BeneficiaryContact } from '../../db/beneficiaries/contact.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { makeCompany } from '../helpers/companies.ts';
import { clabeOf, seedBankAccount, seedBeneficiary, steerBankValidation } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let colombia: {
  company: Company;
  apiKey: string;
  scopedKey: (scopes: ('payments:read' | 'payments:write' | 'beneficiaries:read')[]) => Promise<string>;
};
let mexico: { company: Company; apiKey: string };
/** Digits unique to this run, so that the shared validation service is steered for this file's accounts only. */
const run = String(process.pid).padStart(7, '0').slice(-7);

beforeAll(async () => {
  api = await startTestApi({ config: { bankValidationPollIntervalMs: 100 } });
  colombia = await makeCompany(api.orm, { country: 'COL' });
  mexico = await makeCompany(api.orm, { country: 'MEX' });
});
afterAll(() => api.close());

type AccountChange = UpdateBeneficiaryBankAccount['request']['body'];
const put = (company: { apiKey: string }, beneficiary: string, account: string, body: AccountChange) =>
  api
    .sdk(company.apiKey)
    .updateBeneficiaryBankAccount({ params: { reference: beneficiary, bank_account_reference: account }, body });
/** The validation envelope's details for a change the API refuses. */
const refusal = async (company: { apiKey: string }, beneficiary: string, account: string, body: AccountChange) =>
  expectStatus(await put(company, beneficiary, account, body), 400).error.details;

/** The account's validation status as stored, once it is the one expected. */
async function reaches(company: Company, accountId: string, status: string) {
  await expect
    .poll(
      async () =>
        (await companyEm(api.orm, company.id).findOneOrFail(BeneficiaryBankAccount, { id: accountId }))
          .validationStatus,
      { timeout: 30_000, interval: 100 },
    )
    .toBe(status);
}

describe('GET /beneficiaries', () => {
  let company: Company;
  let apiKey: string;
  beforeAll(async () => {
    ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
    const names = [
      'Distribuidora Andina S.A.S.',
      'Ferretería El Tornillo',
      'Papelería Central Ltda',
      'Andes Logística S.A.S.',
    ];
    for (const [index, name] of names.entries())
      await seedBeneficiary(api.orm, company, {
        name,
        identifierNumber: `90012345${index}`,
        email: index === 0 ? 'cartera@andina.co' : null,
      });
    const gone = await seedBeneficiary(api.orm, company, { name: 'Andina Antigua (borrada)' });
    const em = companyEm(api.orm, company.id);
    const deleted = await em.findOneOrFail(Beneficiary, { id: gone.id });
    deleted.isDeleted = true;
    deleted.deletedAt = new Date();
    const andina = await em.findOneOrFail(Beneficiary, { name: 'Distribuidora Andina S.A.S.' });
    em.create(BeneficiaryContact, { company, beneficiary: andina, type: 'email', value: 'cartera@andina.co' });
    await em.flush();
    await seedBankAccount(api.orm, company, andina, { bankCode: '1007', accountNumber: '2400987654' });
  });

  type ListQuery = NonNullable<ListBeneficiaries['request']['query']>;
  const list = (query: ListQuery = {}, key = apiKey) => api.sdk(key).listBeneficiaries({ query });
  const page = async (query: ListQuery = {}, key = apiKey) => expectStatus(await list(query, key), 200);
  const names = (body: BeneficiaryList) => body.items.map((item) => item.name);

  it('lists beneficiaries by name in the envelope, without deleted ones, with contacts and bank accounts', async () => {
    const body = await page();
    expect(body).toMatchObject({ total: 4, current_page: 1, page_size: 20, total_pages: 1 });
    expect(names(body)).toEqual([
      'Andes Logística S.A.S.',
      'Distribuidora Andina S.A.S.',
      'Ferretería El Tornillo',
      'Papelería Central Ltda',
    ]);
    expect(body.items[1]).toEqual({
      reference: expect.any(String),
      name: 'Distribuidora Andina S.A.S.',
      type: 'supplier',
      email: 'cartera@andina.co',
      phone_number: null,
      identifier_type: 'NIT',
      identifier_number: '900123450',
      payment_terms: null,
      fiscal_address: null,
      contact_information: [{ type: 'email', value: 'cartera@andina.co' }],
      bank_accounts: [
        {
          reference: expect.any(String),
          bank_reference: bankReference('COL', '1007'),
          bank_name: 'Bancolombia',
          account_number: '2400987654',
        },
      ],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('searches by name without case, and by identifier number', async () => {
    expect(names(await page({ search: 'ANDIN' }))).toEqual(['Distribuidora Andina S.A.S.']);
    expect(names(await page({ search: 'andes' }))).toEqual(['Andes Logística S.A.S.']);
    expect(names(await page({ search: '900123452' }))).toEqual(['Papelería Central Ltda']);
    expect(await page({ search: 'inexistente' })).toMatchObject({ items: [], total: 0, total_pages: 0 });
  });

  it('paginates with page_size from 1 to 100', async () => {
    const second = await page({ page_size: 1, page: 2 });
    expect(names(second)).toEqual(['Distribuidora Andina S.A.S.']);
    expect(second).toMatchObject({ total: 4, current_page: 2, page_size: 1, total_pages: 4 });
    expect(names(await page({ page_size: 3, page: 2 }))).toEqual(['Papelería Central Ltda']);
    expect((await page({ page_size: 3, page: 3 })).items).toEqual([]);
    expect((await list({ page_size: 100 })).status).toBe(200);
    for (const query of [{ page_size: 0 }, { page_size: 101 }, { page: 0 }, { page: -1 }]) {
      const response = await list(query);
      expect(response, JSON.stringify(query)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR' } },
      });
    }
  });

  it("never lists another company's beneficiaries", async () => {
    const other = await makeCompany(api.orm, { country: 'COL' });
    expect((await page({}, other.apiKey)).total).toBe(0);
  });
});

describe('PUT /beneficiaries/{reference}/bank-accounts/{bank_account_reference} (Colombia)', () => {
  let beneficiary: Beneficiary;
  let account: BeneficiaryBankAccount;
  beforeAll(async () => {
    beneficiary = await seedBeneficiary(api.orm, colombia.company, { name: 'Lácteos del Valle S.A.S.' });
    account = await seedBankAccount(api.orm, colombia.company, beneficiary, {
      bankCode: '1007',
      accountNumber: `10${run}01`,
    });
  });

  it('changes the account, puts it back to pending, and validates it through its own workflow', async () => {
    const number = `20${run}02`;
    const response = await put(colombia, beneficiary.id, account.id, {
      bank_reference: bankReference('COL', '1051'),
      account_number: number,
      account_type: 'checking',
      account_recipient_name: 'Lácteos del Valle',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      reference: account.id,
      bank_reference: bankReference('COL', '1051'),
      bank_name: 'Banco Davivienda',
      account_number: number,
      account_type: 'checking',
      validation_status: 'pending',
      account_recipient_name: 'Lácteos del Valle',
      account_recipient_document_number: beneficiary.identifierNumber,
      account_recipient_document_type: 'NIT',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    await reaches(colombia.company, account.id, 'validated');
    const stored = await companyEm(api.orm, colombia.company.id).findOneOrFail(BeneficiaryBankAccount, {
      id: account.id,
    });
    expect(
      await api.client.workflow.getHandle(`bank-account-validation/${account.id}/${stored.validationAttempt}`).result(),
    ).toBe('validated');
  });

  it('changes nothing (and does not validate again) when the values are the same', async () => {
    const before = await companyEm(api.orm, colombia.company.id).findOneOrFail(BeneficiaryBankAccount, {
      id: account.id,
    });
    const response = await put(colombia, beneficiary.id, account.id, {
      account_type: 'checking',
      account_number: before.accountNumber,
    });
    expect(expectStatus(response, 200).validation_status).toBe('validated');
    const after = await companyEm(api.orm, colombia.company.id).findOneOrFail(BeneficiaryBankAccount, {
      id: account.id,
    });
    expect(after.validationAttempt).toBe(before.validationAttempt);
  });

  it('records a rejection and a validation error as the service answers them', async () => {
    const rejected = `30${run}03`;
    await steerBankValidation({ account_number: rejected, outcome: 'invalid', reason: 'Titular no coincide' });
    expect(
      expectStatus(await put(colombia, beneficiary.id, account.id, { account_number: rejected }), 200)
        .validation_status,
    ).toBe('pending');
    await reaches(colombia.company, account.id, 'rejected');
    const stored = await companyEm(api.orm, colombia.company.id).findOneOrFail(BeneficiaryBankAccount, {
      id: account.id,
    });
    expect(stored.validationMessage).toBe('Titular no coincide');

    const failing = `40${run}04`;
    await steerBankValidation({ account_number: failing, outcome: 'error' });
    await put(colombia, beneficiary.id, account.id, { account_number: failing });
    await reaches(colombia.company, account.id, 'validation_error');
  });

  it('shows processing while the service works, and a later change supersedes that validation', async () => {
    const held = `50${run}05`;
    await steerBankValidation({ account_number: held, outcome: 'hold' });
    await put(colombia, beneficiary.id, account.id, { account_number: held });
    await reaches(colombia.company, account.id, 'processing');
    const { validationAttempt: heldAttempt } = await companyEm(api.orm, colombia.company.id).findOneOrFail(
      BeneficiaryBankAccount,
      { id: account.id },
    );
    await put(colombia, beneficiary.id, account.id, { account_number: `60${run}06` });
    await reaches(colombia.company, account.id, 'validated');
    const superseded = api.client.workflow.getHandle(`bank-account-validation/${account.id}/${heldAttempt}`);
    expect(await superseded.result()).toBe('superseded');
  });

  it('refuses a malformed account number, a bank of another country and an unknown account type', async () => {
    const field = (body: AccountChange) => refusal(colombia, beneficiary.id, account.id, body);
    expect(await field({ account_number: '12345' })).toEqual({ account_number: ['Must have 6 to 20 digits'] });
    expect(await field({ account_number: '1234-ABC-99' })).toEqual({
      account_number: [expect.stringContaining('digits only')],
    });
    expect(await field({ account_number: '123456789012345678901' })).toHaveProperty('account_number');
    expect(await field({ bank_reference: bankReference('COL', '1507'), account_number: '4001234567' })).toEqual({
      account_number: [expect.stringContaining('mobile number')],
    });
    expect(await field({ bank_reference: bankReference('MEX', '012') })).toEqual({
      bank_reference: [expect.stringContaining('COL')],
    });
    expect(await field({ bank_reference: '00000000-0000-4000-8000-000000000000' })).toHaveProperty('bank_reference');
    // Outside the documented enum: sent raw, past the client's types.
    const current = await api.call(
      'PUT',
      `/public/api/v1/beneficiaries/${beneficiary.id}/bank-accounts/${account.id}`,
      { apiKey: colombia.apiKey, body: { account_type: 'current' } },
    );
    expect(current.body.error.details).toHaveProperty('account_type');
    expect(await field({ account_recipient_name: '' })).toHaveProperty('account_recipient_name');
    const unchanged = await companyEm(api.orm, colombia.company.id).findOneOrFail(BeneficiaryBankAccount, {
      id: account.id,
    });
    expect(unchanged.accountNumber).toBe(`60${run}06`);
  });

  it('refuses to make two accounts of one beneficiary the same account', async () => {
    const other = await seedBankAccount(api.orm, colombia.company, beneficiary, {
      bankCode: '1051',
      accountNumber: `70${run}07`,
    });
    const response = await put(colombia, beneficiary.id, other.id, { account_number: `60${run}06` });
    expect(response.status).toBe(409);
    // As when adding it: the account the beneficiary already has is named.
    expect(response.body).toEqual({ code: 'bank_account_exists', message: expect.any(String), reference: account.id });
  });

  it('answers 404 for an unknown beneficiary or account, and for an account of another beneficiary', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await put(colombia, unknown, account.id, {})).body).toEqual({
      code: 'beneficiary_not_found',
      message: expect.any(String),
    });
    expect((await put(colombia, beneficiary.id, unknown, {})).body).toEqual({
      code: 'bank_account_not_found',
      message: expect.any(String),
    });
    const stranger = await seedBeneficiary(api.orm, colombia.company, { name: 'Otro Proveedor' });
    expect((await put(colombia, stranger.id, account.id, {})).status).toBe(404);
    expect((await put(mexico, beneficiary.id, account.id, {})).status).toBe(404);
    expect(await refusal(colombia, 'abc', account.id, {})).toHaveProperty('reference');
  });

  it('is not reachable with beneficiaries:read, which only reads (changing needs beneficiaries:write)', async () => {
    const key = await colombia.scopedKey(['beneficiaries:read']);
    const response = await put({ apiKey: key }, beneficiary.id, account.id, { account_type: 'savings' });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'beneficiaries:write' });
    expect((await api.sdk(key).listBeneficiaries()).status).toBe(200);
    expect((await api.sdk(key).getBank({ params: { reference: bankReference('COL', '1007') } })).status).toBe(200);
  });
});

describe('PUT bank account (Mexico: CLABE)', () => {
  let beneficiary: Beneficiary;
  let account: BeneficiaryBankAccount;
  beforeAll(async () => {
    beneficiary = await seedBeneficiary(api.orm, mexico.company, {
      name: 'Abarrotes La Esperanza SA de CV',
      identifierType: 'RFC',
      identifierNumber: `AES${run.slice(-6)}AB1`,
    });
    account = await seedBankAccount(api.orm, mexico.company, beneficiary, {
      bankCode: '012',
      accountNumber: clabeOf('012', `1${run}`),
    });
  });

  it('takes a CLABE of the chosen bank with a valid check digit, and validates it', async () => {
    const clabe = clabeOf('072', `2${run}`);
    const response = await put(mexico, beneficiary.id, account.id, {
      bank_reference: bankReference('MEX', '072'),
      account_number: clabe,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      bank_name: 'Banorte',
      account_number: clabe,
      validation_status: 'pending',
      account_recipient_document_type: 'RFC',
    });
    await reaches(mexico.company, account.id, 'validated');
  });

  it('refuses a wrong check digit, a CLABE of another bank, and a bank change its CLABE does not match', async () => {
    const good = clabeOf('072', `3${run}`);
    const wrongDigit = `${good.slice(0, 17)}${(Number(good[17]) + 1) % 10}`;
    const field = (body: AccountChange) => refusal(mexico, beneficiary.id, account.id, body);
    expect(await field({ account_number: wrongDigit })).toEqual({
      account_number: ['The CLABE check digit does not match'],
    });
    expect(await field({ account_number: clabeOf('002', `4${run}`) })).toEqual({
      account_number: [expect.stringContaining('002')],
    });
    expect(await field({ bank_reference: bankReference('MEX', '014') })).toEqual({
      account_number: [expect.stringContaining('072')],
    });
    expect(await field({ account_number: '07218000' })).toEqual({ account_number: ['Must be an 18-digit CLABE'] });
  });
});
