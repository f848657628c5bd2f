import type { z } from 'zod';
import type { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import type { CatalogRow } from '../../db/erp/catalog.repository.ts';
import type { ErpCostCenter } from '../../db/erp/cost-center.entity.ts';
import type { Ancestry } from '../../db/erp/hierarchy.ts';
import type { ErpPaymentTerm } from '../../db/erp/payment-term.entity.ts';
import type { ErpProduct } from '../../db/erp/product.entity.ts';
import type { ErpPurchaseOrder } from '../../db/erp/purchase-order.entity.ts';
import type { ErpTax } from '../../db/erp/tax.entity.ts';
import type { ErpVendor } from '../../db/erp/vendor.entity.ts';
import { amountToCents } from '../schemas/decimal.ts';
import type {
  BookAccountItem,
  BookAccountRecord,
  CostCenterItem,
  CostCenterRecord,
  PaymentTermItem,
  PaymentTermRecord,
  ProductItem,
  ProductRecord,
  PurchaseOrderItem,
  PurchaseOrderRecord,
  TaxItem,
  TaxRecord,
  VendorItem,
  VendorRecord,
} from '../schemas/erp.ts';
import { TAX_TYPES } from '../schemas/erp.ts';
import { centsToAmount, decimalToNumber, isoDate } from '../../platform/money.ts';

// ---- Submitted record → row (the repository adds id, company and timestamps) ----------------------------------

type Common = { external_id: string; is_active: boolean };
const common = (record: Common, raw: Record<string, unknown>) => ({
  externalId: record.external_id,
  isActive: record.is_active,
  raw,
});

const WITHHOLDINGS = new Set<string>(['retefuente', 'reteiva', 'reteica']);

/** A NIT's check digit (`900123456-7`) is not part of the number beneficiaries are matched by. */
function identifierNumber(type: string | null | undefined, number: string | null | undefined): string | null {
  if (!number) return null;
  const compact = number.replace(/[.\s]/g, '');
  return type === 'NIT' ? compact.replace(/^(\d+)-\d$/, '$1') : compact;
}

export function costCenterRow(record: z.output<typeof CostCenterRecord>, raw: Record<string, unknown>): CatalogRow {
  return {
    ...common(record, raw),
    code: record.code ?? null,
    name: record.name,
    description: record.description || null,
    parentExternalId: record.parent_external_id ?? null,
  };
}

export function vendorRow(record: z.output<typeof VendorRecord>, raw: Record<string, unknown>): CatalogRow {
  return {
    ...common(record, raw),
    name: record.name,
    identifierType: record.identifier_type ?? null,
    identifierNumber: identifierNumber(record.identifier_type, record.identifier_number),
    email: record.email?.toLowerCase() ?? null,
    paymentTermExternalId: record.payment_term_external_id ?? null,
    bookAccountExternalId: record.book_account_external_id ?? null,
  };
}

export function productRow(record: z.output<typeof ProductRecord>, raw: Record<string, unknown>): CatalogRow {
  return {
    ...common(record, raw),
    code: record.code ?? null,
    name: record.name,
    description: record.description || null,
    unitCode: record.unit_code ?? null,
    bookAccountExternalId: record.book_account_external_id ?? null,
    taxExternalIds: record.tax_external_ids,
  };
}

export function taxRow(record: z.output<typeof TaxRecord>, raw: Record<string, unknown>): CatalogRow {
  return {
    ...common(record, raw),
    code: record.code ?? null,
    name: record.name,
    type: record.type ?? null,
    rate: record.rate ?? null,
    isWithholding: record.is_withholding ?? WITHHOLDINGS.has(record.type ?? ''),
    bookAccountExternalId: record.book_account_external_id ?? null,
  };
}

export function bookAccountRow(record: z.output<typeof BookAccountRecord>, raw: Record<string, unknown>): CatalogRow {
  return {
    ...common(record, raw),
    code: record.code,
    name: record.name,
    nature: record.nature ?? null,
    parentExternalId: record.parent_external_id ?? null,
  };
}

export function paymentTermRow(record: z.output<typeof PaymentTermRecord>, raw: Record<string, unknown>): CatalogRow {
  const installments = record.installments ?? [{ days: record.days ?? 0, percentage: '100' }];
  return { ...common(record, raw), name: record.name, days: record.days ?? null, installments };
}

export function purchaseOrderRow(
  record: z.output<typeof PurchaseOrderRecord>,
  raw: Record<string, unknown>,
): CatalogRow {
  return {
    ...common(record, raw),
    number: record.number,
    vendorExternalId: record.vendor_external_id ?? null,
    issueDate: record.issue_date ?? null,
    currency: record.currency ?? null,
    status: record.status,
    lines: record.lines.map((line) => ({
      externalId: line.external_id,
      productExternalId: line.product_external_id ?? null,
      description: line.description || null,
      quantity: line.quantity,
      unitPriceCents: Number(amountToCents(line.unit_price)),
      pendingQuantity: line.pending_quantity ?? line.quantity,
    })),
  };
}

// ---- Stored entity → list item -------------------------------------------------------------------------------

type Stamped = { isActive: boolean; createdAt: Date; updatedAt: Date };
const stamps = (record: Stamped) => ({
  is_active: record.isActive,
  created_at: record.createdAt.toISOString(),
  updated_at: record.updatedAt.toISOString(),
});

const hierarchy = (parent: string | null, ancestry: Ancestry) => ({
  parent_external_id: parent,
  depth: ancestry.path.length - 1,
  path: ancestry.path,
  missing_ancestor_external_id: ancestry.missingAncestor,
});

export function presentCostCenter(record: ErpCostCenter, ancestry: Ancestry): z.input<typeof CostCenterItem> {
  return {
    external_id: record.externalId,
    code: record.code ?? null,
    name: record.name,
    description: record.description ?? null,
    ...hierarchy(record.parentExternalId ?? null, ancestry),
    ...stamps(record),
  };
}

export function presentVendor(record: ErpVendor): z.input<typeof VendorItem> {
  return {
    external_id: record.externalId,
    name: record.name,
    identifier_type: record.identifierType ?? null,
    identifier_number: record.identifierNumber ?? null,
    email: record.email ?? null,
    payment_term_external_id: record.paymentTermExternalId ?? null,
    book_account_external_id: record.bookAccountExternalId ?? null,
    ...stamps(record),
  };
}

export function presentProduct(record: ErpProduct): z.input<typeof ProductItem> {
  return {
    external_id: record.externalId,
    code: record.code ?? null,
    name: record.name,
    description: record.description ?? null,
    unit_code: record.unitCode ?? null,
    book_account_external_id: record.bookAccountExternalId ?? null,
    tax_external_ids: record.taxExternalIds ?? [],
    ...stamps(record),
  };
}

const isTaxType = (type: string | null | undefined): type is (typeof TAX_TYPES)[number] =>
  (TAX_TYPES as readonly (string | null | undefined)[]).includes(type);

export function presentTax(record: ErpTax): z.input<typeof TaxItem> {
  return {
    external_id: record.externalId,
    code: record.code ?? null,
    name: record.name,
    type: isTaxType(record.type) ? record.type : record.type ? 'other' : null,
    rate: decimalToNumber(record.rate),
    is_withholding: record.isWithholding,
    book_account_external_id: record.bookAccountExternalId ?? null,
    ...stamps(record),
  };
}

export function presentBookAccount(record: ErpBookAccount, ancestry: Ancestry): z.input<typeof BookAccountItem> {
  return {
    external_id: record.externalId,
    code: record.code,
    name: record.name,
    nature: record.nature ?? null,
    ...hierarchy(record.parentExternalId ?? null, ancestry),
    ...stamps(record),
  };
}

export function presentPaymentTerm(record: ErpPaymentTerm): z.input<typeof PaymentTermItem> {
  return {
    external_id: record.externalId,
    name: record.name,
    days: record.days ?? null,
    installments: record.installments.map((installment) => ({
      days: installment.days,
      percentage: Number(installment.percentage),
    })),
    ...stamps(record),
  };
}

export function presentPurchaseOrder(record: ErpPurchaseOrder): z.input<typeof PurchaseOrderItem> {
  return {
    external_id: record.externalId,
    number: record.number,
    vendor_external_id: record.vendorExternalId ?? null,
    issue_date: isoDate(record.issueDate),
    currency: record.currency ?? null,
    status: record.status ?? null,
    lines: record.lines.map((line) => ({
      external_id: line.externalId,
      product_external_id: line.productExternalId,
      description: line.description,
      quantity: Number(line.quantity),
      unit_price: centsToAmount(line.unitPriceCents),
      pending_quantity: Number(line.pendingQuantity),
    })),
    ...stamps(record),
  };
}
