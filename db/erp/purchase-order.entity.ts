import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { currencyProperty } from '../money.ts';
import { catalogProperties } from './catalog.ts';

/** A line of a purchase order; quantities are decimal strings. */
export type PurchaseOrderLine = {
  externalId: string;
  productExternalId: string | null;
  description: string | null;
  quantity: string;
  unitPriceCents: number;
  pendingQuantity: string;
};

/** A purchase order of the company's ERP, against which documents may be crossed. */
export const ErpPurchaseOrder = defineEntity({
  name: 'ErpPurchaseOrder',
  tableName: 'erp_purchase_orders',
  uniques: [{ properties: ['company', 'externalId'] }],
  indexes: [{ properties: ['company', 'number'] }, { properties: ['company', 'vendorExternalId'] }],
  properties: {
    ...catalogProperties(),
    number: p.string(),
    vendorExternalId: p.string().nullable(),
    issueDate: p.date().nullable(),
    currency: currencyProperty().nullable(),
    status: p.string().nullable(),
    /** Lines arrive and are replaced with their order, so they live inside it. */
    lines: p.json<PurchaseOrderLine[]>().onCreate(() => []),
  },
});
export type ErpPurchaseOrder = InferEntity<typeof ErpPurchaseOrder>;
