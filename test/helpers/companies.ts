import type { EntityName } from '@mikro-orm/core';
import type { Scope } from '../../db/companies/api-key.entity.ts';
import type { Country, Feature } from '../../db/companies/company.entity.ts';
import { createApiKey, createCompany, enableFeature, upsertMember } from '../../db/companies/company.repository.ts';
import { syncCatalog, type CatalogRecord } from '../../db/erp/catalog.repository.ts';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import { ErpTax } from '../../db/erp/tax.entity.ts';
import { ErpVendor } from '../../db/erp/vendor.entity.ts';
import { companyEm, systemEm, type Orm } from '../../db/orm.ts';

let counter = 0;

/** A fresh company of its own for a test, with an unscoped key, optional features and members. */
export async function makeCompany(
  orm: Orm,
  options: {
    country?: Country;
    features?: Feature[];
    members?: { email: string; name: string }[];
    /** Sync the STARTER_ catalogs, so that the accounting agent can propose whole vouchers of the fixtures. */
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

/**
 * The book accounts the accounting agent needs to propose a whole voucher of the fixture documents: an expense
 * account (the fixtures' suppliers' default, below), the supplier payable accounts of both charts, and the
 * account of the taxes the fixtures charge.
 */
export const STARTER_BOOK_ACCOUNTS = [
  { external_id: 'BA-5195', code: '519595', name: 'Diversos', nature: 'debit' },
  { external_id: 'BA-2205', code: '220505', name: 'Proveedores nacionales', nature: 'credit' },
  { external_id: 'BA-201', code: '201.01', name: 'Proveedores nacionales (SAT)', nature: 'credit' },
  { external_id: 'BA-2408', code: '240802', name: 'IVA descontable', nature: 'debit' },
] as const;

/** The taxes the fixture documents charge with an amount: IVA 19% and the per-unit bag tax (DIAN), IVA 16% (SAT). */
const STARTER_TAXES = [
  { externalId: 'TX-IVA19', name: 'IVA 19%', type: 'iva', rate: '0.19' },
  { externalId: 'TX-IVA16', name: 'IVA 16%', type: 'iva', rate: '0.16' },
  { externalId: 'TX-BOLSAS', name: 'INC bolsas', type: 'inc', rate: null },
];

/** The fixtures' suppliers (DIAN's sample issuer and the SAT samples' emisores), with Diversos as their default. */
const STARTER_VENDORS = [
  { externalId: 'V-STENFRANK', identifierType: 'NIT', identifierNumber: '901210113' },
  { externalId: 'V-HE', identifierType: 'RFC', identifierNumber: 'H&E951128469' },
  { externalId: 'V-EKU', identifierType: 'RFC', identifierNumber: 'EKU9003173C9' },
];

/** Syncs the STARTER_ catalogs into the company's ERP catalogs, as the ERP API would. */
export async function syncStarterBookAccounts(orm: Orm, companyId: string): Promise<void> {
  const em = companyEm(orm, companyId);
  const rows = STARTER_BOOK_ACCOUNTS.map((record) => ({
    externalId: record.external_id,
    isActive: true,
    raw: { ...record },
    code: record.code,
    name: record.name,
    nature: record.nature,
    parentExternalId: null,
  }));
  await syncCatalog(em, ErpBookAccount as EntityName<CatalogRecord>, companyId, rows, { hierarchical: true });
  const taxes = STARTER_TAXES.map((tax) => ({
    ...tax,
    isActive: true,
    raw: { ...tax },
    code: null,
    isWithholding: false,
    bookAccountExternalId: tax.type === 'iva' ? 'BA-2408' : 'BA-5195',
  }));
  await syncCatalog(em, ErpTax as EntityName<CatalogRecord>, companyId, taxes, { hierarchical: false });
  const vendors = STARTER_VENDORS.map((vendor) => ({
    ...vendor,
    isActive: true,
    raw: { ...vendor },
    name: vendor.externalId,
    email: null,
    paymentTermExternalId: null,
    bookAccountExternalId: 'BA-5195',
  }));
  await syncCatalog(em, ErpVendor as EntityName<CatalogRecord>, companyId, vendors, { hierarchical: false });
}
