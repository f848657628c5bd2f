import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { catalogProperties } from './catalog.ts';

/** A product or service of the company's ERP, proposed for document lines. */
export const ErpProduct = defineEntity({
  name: 'ErpProduct',
  tableName: 'erp_products',
  uniques: [{ properties: ['company', 'externalId'] }],
  indexes: [{ properties: ['company', 'code'] }],
  properties: {
    ...catalogProperties(),
    code: p.string().nullable(),
    name: p.string(),
    description: p.text().nullable(),
    unitCode: p.string().nullable(),
    bookAccountExternalId: p.string().nullable(),
    taxExternalIds: p.array().default([]),
  },
});
export type ErpProduct = InferEntity<typeof ErpProduct>;
