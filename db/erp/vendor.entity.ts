import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { catalogProperties } from './catalog.ts';

/** A vendor (supplier) of the company's ERP, matched to beneficiaries by identifier. */
export const ErpVendor = defineEntity({
  name: 'ErpVendor',
  tableName: 'erp_vendors',
  uniques: [{ properties: ['company', 'externalId'] }],
  indexes: [{ properties: ['company', 'identifierNumber'] }],
  properties: {
    ...catalogProperties(),
    name: p.string(),
    identifierType: p.string().nullable(),
    identifierNumber: p.string().nullable(),
    email: p.string().nullable(),
    paymentTermExternalId: p.string().nullable(),
    /** The vendor's default account: where its purchases go when nothing more specific names one. */
    bookAccountExternalId: p.string().nullable(),
  },
});
export type ErpVendor = InferEntity<typeof ErpVendor>;
