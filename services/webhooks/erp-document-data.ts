import type { z } from 'zod';
import { centsToAmount, isoDate } from '../../platform/money.ts';
import {
  handedOverJournal,
  type AccountingEntry,
  type JournalEntryLine,
} from '../../db/accounting/accounting-entry.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import { ErpCostCenter } from '../../db/erp/cost-center.entity.ts';
import { ErpProduct } from '../../db/erp/product.entity.ts';
import { ErpTax } from '../../db/erp/tax.entity.ts';
import { ErpVendor } from '../../db/erp/vendor.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { ErpDocumentData as ErpDocumentDataSchema } from '../../read-models/erp-document-schema.ts';
import type { ErpRegistration } from './erp-answer.ts';
import { localVoucher } from '../accounting/local-amounts.ts';

// Amounts not named `*_cents` are decimal numbers in the document's currency, as the API shows amounts; the
// `*_cents` ones are integer cents, and the lines' debit_cents and credit_cents strings, as the contract lists them.
// The `local_*` amounts are the same in the company's local currency (local-amounts.ts).

/** `erp_document.data`: the document as the ERP registered it, as its schema publishes it. */
export type ErpDocumentData = z.output<typeof ErpDocumentDataSchema>;
type JournalLineData = ErpDocumentData['erp_journal_entry_lines'][number];
type ErpProductRecord = NonNullable<JournalLineData['product']>;
type ErpBookAccountRecord = NonNullable<JournalLineData['book_account']>;
type ErpCostCenterRecord = NonNullable<JournalLineData['cost_centers'][number]['cost_center']>;
type ErpTaxRecord = NonNullable<JournalLineData['taxes'][number]['tax']>;
type ErpVendorRecord = NonNullable<ErpDocumentData['erp_vendor']>;

/** The ERP catalog records a voucher references, by external_id (inactive ones too: they describe what was booked). */
export type VoucherCatalog = {
  products: Map<string, ErpProductRecord>;
  bookAccounts: Map<string, ErpBookAccountRecord>;
  costCenters: Map<string, ErpCostCenterRecord>;
  taxes: Map<string, ErpTaxRecord>;
  vendor: ErpVendorRecord | null;
};

const byId = <T extends { id: string }>(records: T[]) => new Map(records.map((record) => [record.id, record]));
const present = <T>(values: (T | null | undefined)[]) => [
  ...new Set(values.filter((value): value is T => value !== null && value !== undefined)),
];

/** Reads the catalog records `entry` references: one query per catalog, through the company's entity manager. */
export async function loadVoucherCatalog(em: EntityManager, entry: AccountingEntry): Promise<VoucherCatalog> {
  const journal = handedOverJournal(entry);
  const lines = journal.erp_journal_entry_lines;
  const accountIds = present([
    ...lines.map((line) => line.book_account_external_id),
    ...journal.payment_lines.map((line) => line.book_account_external_id),
  ]);
  const productIds = present(lines.map((line) => line.product_external_id));
  const costCenterIds = present([
    journal.cost_center_external_id,
    ...lines.flatMap((line) => (line.cost_centers ?? []).map((share) => share.cost_center_external_id)),
  ]);
  const taxIds = present(lines.flatMap((line) => (line.taxes ?? []).map((tax) => tax.tax_external_id)));
  const [accounts, products, costCenters, taxes, vendor] = await Promise.all([
    accountIds.length ? em.find(ErpBookAccount, { externalId: { $in: accountIds } }) : [],
    productIds.length ? em.find(ErpProduct, { externalId: { $in: productIds } }) : [],
    costCenterIds.length ? em.find(ErpCostCenter, { externalId: { $in: costCenterIds } }) : [],
    taxIds.length ? em.find(ErpTax, { externalId: { $in: taxIds } }) : [],
    journal.vendor_external_id ? em.findOne(ErpVendor, { externalId: journal.vendor_external_id }) : null,
  ]);
  return {
    bookAccounts: byId(
      accounts.map((account) => ({
        id: account.externalId,
        code: account.code,
        name: account.name,
        nature: account.nature ?? null,
      })),
    ),
    products: byId(
      products.map((product) => ({
        id: product.externalId,
        code: product.code ?? null,
        name: product.name,
        unit_code: product.unitCode ?? null,
      })),
    ),
    costCenters: byId(
      costCenters.map((center) => ({ id: center.externalId, code: center.code ?? null, name: center.name })),
    ),
    taxes: byId(
      taxes.map((tax) => ({
        id: tax.externalId,
        code: tax.code ?? null,
        name: tax.name,
        type: tax.type ?? null,
        rate: tax.rate === null || tax.rate === undefined ? null : Number(tax.rate),
        is_withholding: tax.isWithholding,
      })),
    ),
    vendor: vendor
      ? {
          id: vendor.externalId,
          name: vendor.name,
          identifier_type: vendor.identifierType ?? null,
          identifier_number: vendor.identifierNumber ?? null,
          email: vendor.email ?? null,
        }
      : null,
  };
}

/** An item is a line of goods or services (it names a product or a quantity); tax and withholding lines are not. */
const isItem = (line: JournalEntryLine) =>
  Boolean(line.product_external_id) || (line.quantity !== null && line.quantity !== undefined);
/** A line's amount: exactly one of its debit and credit is set. */
const lineCents = (line: JournalEntryLine) => line.debit_cents ?? line.credit_cents ?? 0;
// Discounts are amounts in cents, but the voucher accepts any number: round to whole cents.
const discountCents = (line: JournalEntryLine) => Math.round(line.discount ?? 0);
const nullableAmount = (cents: bigint | null) => (cents === null ? null : centsToAmount(cents));
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const centsString = (cents: bigint | number | null | undefined) =>
  cents === null || cents === undefined ? null : String(cents);

/**
 * Builds `erp_document.data` at registration from what the service holds: the document, its posted voucher, the ERP's
 * answer (`erp_invoice_id` is `external_reference`, `invoice_reference` is `document_reference`) and the catalog
 * records the voucher references. The mapping is recorded in docs/decisions.md (Webhooks, "The ERP's answer").
 */
export function erpDocumentData(
  document: Document,
  entry: AccountingEntry,
  registration: ErpRegistration,
  catalog: VoucherCatalog,
): ErpDocumentData {
  const journal = handedOverJournal(entry);
  const lines = journal.erp_journal_entry_lines;
  const items = lines.filter(isItem);
  const crossing = lines.find((line) => line.source === 'purchase_order' || line.source === 'goods_receipt');
  const headerCostCenter = journal.cost_center_external_id
    ? [{ cost_center_external_id: journal.cost_center_external_id, percentage: 100 }]
    : [];
  const costCentersOf = (line: JournalEntryLine) => (line.cost_centers?.length ? line.cost_centers : headerCostCenter);
  const itemTaxes = items.flatMap((line) => line.taxes ?? []);
  const ivaAt = (rate: number) =>
    sum(
      itemTaxes
        .filter(
          (tax) =>
            catalog.taxes.get(tax.tax_external_id)?.type === 'iva' &&
            catalog.taxes.get(tax.tax_external_id)?.rate === rate,
        )
        .map((tax) => tax.amount_cents),
    );
  const dueDates = journal.payment_lines.map((line) => line.due_date).sort();
  const local = localVoucher(document, journal);

  return {
    document_id: document.id,
    document_number: journal.document_number ?? document.documentNumber,
    document_reference: registration.invoiceReference,
    document_type_id: journal.document_type_external_id ?? null,
    external_reference: registration.erpInvoiceId,
    origin: crossing ? (crossing.source as 'purchase_order' | 'goods_receipt') : 'direct',
    status: journal.status,
    vendor_id: journal.vendor_external_id ?? null,
    issue_date: journal.issue_date,
    due_date: dueDates.at(-1) ?? journal.expiration_date ?? null,
    expiration_date: journal.expiration_date ?? isoDate(document.expirationDate ?? null),
    accounting_date: journal.posting_date ?? isoDate(entry.accountedAt)!,
    observation: journal.description ?? null,
    currency: local.currency,
    exchange_rate: local.exchangeRate,
    items: items.map((line) => ({
      description: line.description ?? null,
      product_id: line.product_external_id ?? null,
      quantity: line.quantity ?? null,
      unit_price:
        line.unit_price_cents === null || line.unit_price_cents === undefined
          ? null
          : centsToAmount(line.unit_price_cents),
      discount: centsToAmount(discountCents(line)),
      amount_total: centsToAmount(lineCents(line)),
      taxes: (line.taxes ?? []).map((tax) => ({ id: tax.tax_external_id, base: centsToAmount(tax.base_cents) })),
      cost_centers: costCentersOf(line).map((share) => ({
        id: share.cost_center_external_id,
        value: share.percentage,
      })),
    })),
    summary: {
      subtotal: centsToAmount(sum(items.map(lineCents))),
      gross_total: centsToAmount(sum(lines.map((line) => line.debit_cents ?? 0))),
      net_total: centsToAmount(sum(journal.payment_lines.map((line) => line.amount_cents))),
      discount: centsToAmount(sum(items.map(discountCents))),
      iva_8: centsToAmount(ivaAt(0.08)),
      iva_16: centsToAmount(ivaAt(0.16)),
    },
    payment_lines: journal.payment_lines.map((line, index) => ({
      amount: centsToAmount(line.amount_cents),
      local_amount: nullableAmount(local.paymentLines[index] ?? null),
      due_date: line.due_date,
      book_account_id: line.book_account_external_id,
    })),
    erp_journal: journal.document_type_external_id ? { id: journal.document_type_external_id } : null,
    erp_vendor: catalog.vendor,
    erp_journal_entry_lines: lines.map((line, index) => ({
      source: line.source,
      description: line.description ?? null,
      debit_cents: centsString(line.debit_cents),
      credit_cents: centsString(line.credit_cents),
      local_debit_cents: centsString(local.lines[index]?.debit),
      local_credit_cents: centsString(local.lines[index]?.credit),
      quantity: line.quantity ?? null,
      book_account_id: line.book_account_external_id,
      book_account: catalog.bookAccounts.get(line.book_account_external_id) ?? null,
      product_id: line.product_external_id ?? null,
      product: line.product_external_id ? (catalog.products.get(line.product_external_id) ?? null) : null,
      cost_centers: costCentersOf(line).map((share) => ({
        id: share.cost_center_external_id,
        percentage: share.percentage,
        cost_center: catalog.costCenters.get(share.cost_center_external_id) ?? null,
      })),
      taxes: (line.taxes ?? []).map((tax) => ({
        id: tax.tax_external_id,
        base_cents: tax.base_cents,
        amount_cents: tax.amount_cents,
        tax: catalog.taxes.get(tax.tax_external_id) ?? null,
      })),
    })),
  };
}
