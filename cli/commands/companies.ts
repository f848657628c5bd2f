import { ApiKey } from '../../db/companies/api-key.entity.ts';
import { Company } from '../../db/companies/company.entity.ts';
import {
  createApiKey,
  createCompany,
  disableFeature,
  enableFeature,
  upsertMember,
} from '../../db/companies/company.repository.ts';
import { systemEm, type EntityManager } from '../../db/orm.ts';
import { country, email, feature, optional, reference, required, scopes } from '../arguments.ts';
import type { Command } from '../command.ts';
import { notFound } from '../errors.ts';

async function findCompany(em: EntityManager, ref: string): Promise<Company> {
  const company = await em.findOne(Company, { id: ref });
  if (!company) throw notFound('company', ref);
  return company;
}

/** Companies, their API keys, members and features. */
export const companyCommands: Command[] = [
  {
    group: 'companies',
    action: 'create',
    usage: 'companies create --name NAME --country COL|MEX [--tax-id ID]',
    options: { name: { type: 'string' }, country: { type: 'string' }, 'tax-id': { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const { company, apiKey } = await createCompany(em, {
        name: required(input, 'name'),
        country: country(input),
        taxId: optional(input, 'tax-id') ?? null,
      });
      return { reference: company.id, name: company.name, country: company.country, api_key: apiKey };
    },
  },
  {
    group: 'companies',
    action: 'list',
    usage: 'companies list',
    options: {},
    async run(_input, context) {
      const em = systemEm(await context.orm());
      const companies = await em.find(Company, {}, { orderBy: { createdAt: 'asc' } });
      return {
        companies: companies.map((company) => ({
          reference: company.id,
          name: company.name,
          country: company.country,
          tax_id: company.taxId,
          features: company.features,
        })),
      };
    },
  },
  {
    group: 'api-keys',
    action: 'create',
    usage:
      'api-keys create --company REF [--scopes payments:read,payments:write,beneficiaries:read,beneficiaries:write]',
    options: { company: { type: 'string' }, scopes: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const company = await findCompany(em, reference(input, 'company'));
      const { plaintext, apiKey } = await createApiKey(em, company, scopes(input));
      return { api_key: plaintext, prefix: apiKey.prefix, scopes: apiKey.scopes };
    },
  },
  {
    group: 'api-keys',
    action: 'revoke',
    usage: 'api-keys revoke --prefix apk_XXXXXXXXXXXX',
    options: { prefix: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const prefix = required(input, 'prefix');
      const apiKey = await em.findOne(ApiKey, { prefix, revokedAt: null });
      if (!apiKey) throw notFound('api_key', prefix);
      apiKey.revokedAt = new Date();
      await em.flush();
      return { prefix, revoked_at: apiKey.revokedAt.toISOString() };
    },
  },
  {
    group: 'members',
    action: 'add',
    usage: 'members add --company REF --email E --name N',
    options: { company: { type: 'string' }, email: { type: 'string' }, name: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const company = await findCompany(em, reference(input, 'company'));
      const member = await upsertMember(em, company, { email: email(input), name: required(input, 'name') });
      return { reference: member.id, email: member.email, name: member.name };
    },
  },
  {
    group: 'features',
    action: 'enable',
    usage: 'features enable --company REF --feature workflow_api',
    options: { company: { type: 'string' }, feature: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const company = await enableFeature(em, await findCompany(em, reference(input, 'company')), feature(input));
      return { company: company.id, features: company.features };
    },
  },
  {
    group: 'features',
    action: 'disable',
    usage: 'features disable --company REF --feature workflow_api',
    options: { company: { type: 'string' }, feature: { type: 'string' } },
    async run(input, context) {
      const em = systemEm(await context.orm());
      const company = await disableFeature(em, await findCompany(em, reference(input, 'company')), feature(input));
      return { company: company.id, features: company.features };
    },
  },
];
