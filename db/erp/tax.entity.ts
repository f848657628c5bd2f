import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { catalogProperties } from './catalog.ts';

/** Values seen: `iva`, `retefuente`, `reteica`, `ieps`, `isr`. */
export type ErpTaxType = 'iva' | 'retefuente' | 'reteica' | 'ieps' | 'isr' | (string & {});

/** A tax or withholding of the company's ERP. */
export const ErpTax = defineEntity({
  name: 'ErpTax',
  tableName: 'erp_taxes',
  uniques: [{ properties: ['company', 'externalId'] }],
  properties: {
    ...catalogProperties(),
    code: p.string().nullable(),
    name: p.string(),
    type: p.string().$type<ErpTaxType>().nullable(),
    /** Decimal fraction, read as a string (e.g. "0.19"). */
    rate: p.decimal().precision(12).scale(8).nullable(),
    isWithholding: p.boolean().default(false),
    bookAccountExternalId: p.string().nullable(),
  },
});
export type ErpTax = InferEntity<typeof ErpTax>;
