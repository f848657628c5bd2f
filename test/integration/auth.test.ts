import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Member } from '../../db/companies/member.entity.ts';
import { ApiKey } from '../../db/companies/api-key.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('authentication', () => {
  it('answers 401 with a flat body when the api-key header is missing', async () => {
    const response = await api.call('GET', '/public/api/v1/banks');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ code: 'unauthorized', message: expect.any(String) });
  });

  it('answers 401 for a malformed key and for a well-formed key that does not exist', async () => {
    const malformed = await api.call('GET', '/public/api/v1/banks', { apiKey: 'not-a-key' });
    const unknown = await api.call('GET', '/public/api/v1/banks', {
      apiKey: `apk_${'a'.repeat(12)}_${'b'.repeat(43)}`,
    });
    expect([malformed.status, unknown.status]).toEqual([401, 401]);
    expect(unknown.body.code).toBe('unauthorized');
  });

  it('answers 401 when the secret part is wrong even though the prefix exists', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const tampered = apiKey.slice(0, -4) + (apiKey.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await api.call('GET', '/public/api/v1/banks', { apiKey: tampered })).status).toBe(401);
  });

  it('answers 401 for a revoked key', async () => {
    const { company, apiKey } = await makeCompany(api.orm);
    const em = systemEm(api.orm);
    const stored = await em.findOneOrFail(ApiKey, { company });
    stored.revokedAt = new Date();
    await em.flush();
    expect((await api.call('GET', '/public/api/v1/banks', { apiKey })).status).toBe(401);
  });

  it('does not accept the ERP Authorization header on the public API', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = await api.call('GET', '/public/api/v1/banks', { headers: { authorization: `ApiKey ${apiKey}` } });
    expect(response.status).toBe(401);
  });

  it("serves the company's own country with a valid key", async () => {
    const colombia = await makeCompany(api.orm, { country: 'COL' });
    const mexico = await makeCompany(api.orm, { country: 'MEX' });
    const colombian = await api.call('GET', '/public/api/v1/banks', { apiKey: colombia.apiKey });
    const mexican = await api.call('GET', '/public/api/v1/banks', { apiKey: mexico.apiKey });
    expect(colombian.status).toBe(200);
    expect(colombian.body.map((bank: { name: string }) => bank.name)).toContain('Bancolombia');
    expect(mexican.body.map((bank: { bank_code: string }) => bank.bank_code)).toContain('012');
    expect(mexican.body.map((bank: { name: string }) => bank.name)).not.toContain('Bancolombia');
  });

  it("answers 404 for a reference outside the caller's reach", async () => {
    const mexico = await makeCompany(api.orm, { country: 'MEX' });
    const response = await api.call('GET', `/public/api/v1/banks/${bankReference('COL', '1007')}`, {
      apiKey: mexico.apiKey,
    });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'bank_not_found', message: expect.any(String) });
  });
});

describe('scoped keys', () => {
  it('lets a key with beneficiaries:read read banks', async () => {
    const company = await makeCompany(api.orm);
    const key = await company.scopedKey(['beneficiaries:read']);
    expect((await api.call('GET', '/public/api/v1/banks', { apiKey: key })).status).toBe(200);
  });

  it('refuses a key whose scopes do not include the one the endpoint needs', async () => {
    const company = await makeCompany(api.orm);
    const key = await company.scopedKey(['payments:read', 'payments:write']);
    const response = await api.call('GET', '/public/api/v1/banks', { apiKey: key });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'beneficiaries:read' });
  });

  it('refuses a scoped key on endpoints no scope names', async () => {
    const company = await makeCompany(api.orm);
    const key = await company.scopedKey(['payments:read', 'payments:write', 'beneficiaries:read']);
    const response = await api.call('GET', '/public/api/v1/documents', { apiKey: key });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope', required_scope: null });
  });

  it('keeps full access for a key without scopes', async () => {
    const company = await makeCompany(api.orm);
    expect(
      (await api.call('GET', `/public/api/v1/banks/${bankReference('COL', '1007')}`, { apiKey: company.apiKey }))
        .status,
    ).toBe(200);
  });
});

describe('tenant filter', () => {
  it("never shows one company's rows to another, by list or by reference", async () => {
    const a = await makeCompany(api.orm, { members: [{ email: 'ana@a.example', name: 'Ana' }] });
    const b = await makeCompany(api.orm);
    const member = await companyEm(api.orm, a.company.id).findOneOrFail(Member, { email: 'ana@a.example' });
    const asB = companyEm(api.orm, b.company.id);
    expect(await asB.find(Member, {})).toEqual([]);
    expect(await asB.findOne(Member, { id: member.id })).toBeNull();
  });

  it('refuses to query a company-owned entity without a company scope', async () => {
    await expect(api.orm.em.fork().find(Member, {})).rejects.toThrow(/tenant/);
  });
});
