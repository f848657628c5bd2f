import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { catalogProperties } from './catalog.ts';

export const ACCOUNT_NATURES = ['debit', 'credit'] as const;
export type AccountNature = (typeof ACCOUNT_NATURES)[number];

/** An account of the company's chart of accounts (PUC in Colombia), as kept in its ERP. */
export const ErpBookAccount = defineEntity({
  name: 'ErpBookAccount',
  tableName: 'erp_book_accounts',
  uniques: [{ properties: ['company', 'externalId'] }],
  indexes: [{ properties: ['company', 'code'] }],
  properties: {
    ...catalogProperties(),
    code: p.string(),
    name: p.string(),
    nature: p.enum(ACCOUNT_NATURES).nativeEnumName('account_nature').nullable(),
    parentExternalId: p.string().nullable(),
  },
});
export type ErpBookAccount = InferEntity<typeof ErpBookAccount>;
