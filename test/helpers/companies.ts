import type { EntityName } from '@mikro-orm/core';
import type { Scope } from '../../db/companies/api-key.entity.ts';
import type { Country, Feature } from '../../db/companies/company.entity.ts';
import { createApiKey, createCompany, enableFeature, upsertMember } from '../../db/companies/company.repository.ts';
import { syncCatalog, type CatalogRecord } from '../../db/erp/catalog.repository.ts';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import { companyEm, systemEm, type Orm } from '../../db/orm.ts';

let counter = 0;

/** A fresh company of its own for a test, with an unscoped key, optional features and members. */
export async function makeCompany(
  orm: Orm,
  options: {
    country?: Country;
    features?: Feature[];
    members?: { email: string; name: string }[];
    /** Sync STARTER_BOOK_ACCOUNTS, so that the accounting agent can propose whole vouchers. */
    bookAccounts?: boolean;
  } = {},
) {
  const em = systemEm(orm);
  const { company, apiKey } = await createCompany(em, {
    name: `Test Company ${process.pid}-${++counter}`,
    country: options.country ?? 'COL',
    taxId: '900000001',
  });
  for (const feature of options.features ?? []) await enableFeature(em, company, feature);
  for (const member of options.members ?? []) await upsertMember(em, company, member);
  if (options.bookAccounts) await syncStarterBookAccounts(orm, company.id);
  return {
    company,
    apiKey,
    scopedKey: async (scopes: Scope[]) => (await createApiKey(systemEm(orm), company, scopes)).plaintext,
  };
}

/** The book accounts the accounting agent needs to propose a whole voucher: an expense and a supplier payable account. */
export const STARTER_BOOK_ACCOUNTS = [
  { external_id: 'BA-5195', code: '519595', name: 'Diversos', nature: 'debit' },
  { external_id: 'BA-2205', code: '220505', name: 'Proveedores nacionales', nature: 'credit' },
] as const;

/** Syncs STARTER_BOOK_ACCOUNTS into the company's ERP catalog, as POST /erp/book-accounts would. */
export async function syncStarterBookAccounts(orm: Orm, companyId: string): Promise<void> {
  const rows = STARTER_BOOK_ACCOUNTS.map((record) => ({
    externalId: record.external_id,
    isActive: true,
    raw: { ...record },
    code: record.code,
    name: record.name,
    nature: record.nature,
    parentExternalId: null,
  }));
  await syncCatalog(companyEm(orm, companyId), ErpBookAccount as EntityName<CatalogRecord>, companyId, rows, {
    hierarchical: true,
  });
}
