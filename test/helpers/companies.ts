import type { Scope } from '../../db/companies/api-key.entity.ts';
import type { Country, Feature } from '../../db/companies/company.entity.ts';
import { createApiKey, createCompany, enableFeature, upsertMember } from '../../db/companies/company.repository.ts';
import { systemEm, type Orm } from '../../db/orm.ts';

let counter = 0;

/** A fresh company of its own for a test, with an unscoped key, optional features and members. */
export async function makeCompany(
  orm: Orm,
  options: { country?: Country; features?: Feature[]; members?: { email: string; name: string }[] } = {},
) {
  const em = systemEm(orm);
  const { company, apiKey } = await createCompany(em, {
    name: `Test Company ${process.pid}-${++counter}`,
    country: options.country ?? 'COL',
    taxId: '900000001',
  });
  for (const feature of options.features ?? []) await enableFeature(em, company, feature);
  for (const member of options.members ?? []) await upsertMember(em, company, member);
  return {
    company,
    apiKey,
    scopedKey: async (scopes: Scope[]) => (await createApiKey(systemEm(orm), company, scopes)).plaintext,
  };
}
