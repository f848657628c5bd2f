import type { EntityManager } from '../orm.ts';
import type { Scope } from './api-key.entity.ts';
import { issueApiKey } from './api-key.repository.ts';
import { Company, type Country, type Feature } from './company.entity.ts';
import { Member } from './member.entity.ts';

/** Creates a company with its first, unscoped API key; the key's plaintext is returned once. */
export async function createCompany(
  em: EntityManager,
  input: { name: string; country: Country; taxId?: string | null },
) {
  const company = em.create(Company, {
    name: input.name,
    country: input.country,
    taxId: input.taxId ?? null,
    features: [],
  });
  const { plaintext } = issueApiKey(em, company);
  await em.flush();
  return { company, apiKey: plaintext };
}

export async function createApiKey(em: EntityManager, company: Company, scopes: Scope[]) {
  const issued = issueApiKey(em, company, scopes);
  await em.flush();
  return issued;
}

/** Adds a member, or renames the one with that e-mail: e-mails are unique per company, compared lower-cased. */
export async function upsertMember(
  em: EntityManager,
  company: Company,
  input: { email: string; name: string },
): Promise<Member> {
  const email = input.email.trim().toLowerCase();
  const existing = await em.findOne(Member, { company, email });
  const member = existing ?? em.create(Member, { company, email, name: input.name });
  member.name = input.name;
  await em.flush();
  return member;
}

export async function enableFeature(em: EntityManager, company: Company, feature: Feature): Promise<Company> {
  if (!company.features.includes(feature)) company.features = [...company.features, feature];
  await em.flush();
  return company;
}

export async function disableFeature(em: EntityManager, company: Company, feature: Feature): Promise<Company> {
  company.features = company.features.filter((enabled) => enabled !== feature);
  await em.flush();
  return company;
}
