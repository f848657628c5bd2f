import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { supplierPaymentTermDays } from '../erp/payment-term-days.ts';
import { trigramIndex } from '../text-search.ts';
import { BeneficiaryBankAccount } from './bank-account.entity.ts';
import { BeneficiaryContact } from './contact.entity.ts';

export const BENEFICIARY_TYPES = ['supplier', 'employee'] as const;
export type BeneficiaryType = (typeof BENEFICIARY_TYPES)[number];

/** Someone the company pays: a supplier (usually the issuer of fiscal documents) or an employee. */
export const Beneficiary = defineEntity({
  name: 'Beneficiary',
  tableName: 'beneficiaries',
  uniques: [{ properties: ['company', 'identifierType', 'identifierNumber'] }],
  // Text search matches anywhere in the name or the identifier.
  indexes: [
    { properties: ['company', 'name'] },
    trigramIndex('beneficiaries', 'name'),
    trigramIndex('beneficiaries', 'identifier_number'),
  ],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    name: p.string(),
    type: p.enum(BENEFICIARY_TYPES).nativeEnumName('beneficiary_type').default('supplier'),
    email: p.string().nullable(),
    phoneNumber: p.string().nullable(),
    /** NIT, CC, CE, NIT_EXT, RFC, PASSPORT...: open list, so a plain string. */
    identifierType: p.string(),
    identifierNumber: p.string(),
    /** Payment term in days, set on the beneficiary itself; the ERP's term (erpPaymentTermDays) comes first. */
    paymentTerms: p.integer().nullable(),
    /** The days of the supplier's payment term in the company's ERP (its vendor's term), read with the row. */
    erpPaymentTermDays: p
      .integer()
      .formula((_, table) => supplierPaymentTermDays(table.alias))
      .nullable(),
    fiscalAddress: p.text().nullable(),
    isDeleted: p.boolean().default(false),
    deletedAt: p.datetime().nullable(),
    contacts: () => p.oneToMany(BeneficiaryContact).mappedBy('beneficiary'),
    bankAccounts: () => p.oneToMany(BeneficiaryBankAccount).mappedBy('beneficiary'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Beneficiary = InferEntity<typeof Beneficiary>;
