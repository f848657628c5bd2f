import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { catalogProperties } from './catalog.ts';

/** A cost center of the company's ERP, used to classify documents. */
export const ErpCostCenter = defineEntity({
  name: 'ErpCostCenter',
  tableName: 'erp_cost_centers',
  uniques: [{ properties: ['company', 'externalId'] }],
  properties: {
    ...catalogProperties(),
    code: p.string().nullable(),
    name: p.string(),
    description: p.text().nullable(),
    parentExternalId: p.string().nullable(),
  },
});
export type ErpCostCenter = InferEntity<typeof ErpCostCenter>;
