import type { EntityName, QueryOrderMap } from '@mikro-orm/core';
import { z } from 'zod';
import { ErpBookAccount } from '../../db/erp/book-account.entity.ts';
import {
  findCatalogPage,
  loadAncestry,
  syncCatalog,
  syncedExternalIds,
  type CatalogRecord,
  type CatalogRow,
} from '../../db/erp/catalog.repository.ts';
import { ErpCostCenter } from '../../db/erp/cost-center.entity.ts';
import { ErpPaymentTerm } from '../../db/erp/payment-term.entity.ts';
import { ErpProduct } from '../../db/erp/product.entity.ts';
import { ErpPurchaseOrder } from '../../db/erp/purchase-order.entity.ts';
import { ErpTax } from '../../db/erp/tax.entity.ts';
import { ErpVendor } from '../../db/erp/vendor.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import type { LifecycleSubject } from '../../services/processes.ts';
import { resumeVouchersAwaitingCatalog } from '../../services/accounting/accounting.ts';
import { temporalProcesses } from '../../temporal/processes.ts';
import * as present from '../presenters/erp.ts';
import { defineRoute, type AnyRoute, type Caller } from '../route.ts';
import { fieldErrors } from '../router.ts';
import { UNSTORABLE_TEXT } from '../errors.ts';
import { unstorableTextPaths, page } from '../schemas/common.ts';
import * as erp from '../schemas/erp.ts';

const TAGS = ['ERP catalogs'];

type ListQuery = z.output<typeof erp.CatalogListQuery>;

/** One ERP catalog: how its records are validated and stored, and how it is listed. */
interface Catalog<R extends z.ZodType, E extends CatalogRecord, Q extends z.ZodType<ListQuery>> {
  /** Path segment under /api/v1/erp, and in words (`cost centers`) and in operation ids (`syncCostCenters`). */
  path: string;
  /** For schema names (`ErpCostCenterBatch`). */
  noun: string;
  entity: EntityName<E>;
  record: R;
  row: (record: z.output<R>, raw: Record<string, unknown>) => CatalogRow;
  /** Hierarchical catalogs refuse cycles and present depth and path. */
  hierarchical: boolean;
  query: Q;
  list: z.ZodType;
  searchColumns: string[];
  order: QueryOrderMap<E>[];
  equals?: (query: z.output<Q>) => Record<string, string | undefined>;
  present: (em: EntityManager, records: E[]) => Promise<unknown[]>;
  /** Refuses valid rows for what they reference (by external_id), before anything is written. */
  refuse?: (em: EntityManager, rows: CatalogRow[]) => Promise<Map<string, ItemRefusal>>;
  /** What the sync's description adds for this catalog. */
  notes?: string;
  /** Runs in the sync's transaction; the webhook deliveries it records start once that commits. */
  afterSync?: (
    em: EntityManager,
    companyId: string,
    publicUrl: string,
  ) => Promise<{ deliveries: DeliveryToStart[]; questions: LifecycleSubject[] }>;
}

/** Why a valid row is not written: a stable code and field messages, as the sync's `errors` report them. */
type ItemRefusal = Required<Pick<z.input<typeof erp.SyncItemError>, 'code' | 'errors'>>;

/** `cost-centers` → `CostCenters`. */
const pascalCase = (path: string) =>
  path.replace(/(^|-)([a-z])/g, (_, _dash: string, letter: string) => letter.toUpperCase());

const defineCatalog = <R extends z.ZodType, E extends CatalogRecord, Q extends z.ZodType<ListQuery>>(
  catalog: Catalog<R, E, Q>,
) => catalog;

/** The record at each index of the batch as it was sent, for `raw` and for naming refused records. */
function submittedRecords(body: unknown): unknown[] {
  return typeof body === 'object' && body !== null && 'items' in body && Array.isArray(body.items)
    ? body.items
    : [body];
}

const sentExternalId = (record: unknown): string | null =>
  typeof record === 'object' && record !== null && 'external_id' in record && typeof record.external_id === 'string'
    ? record.external_id
    : null;

function describeCycle(cycle: string[]): string {
  const shown = cycle.length > 12 ? [...cycle.slice(0, 6), '…', ...cycle.slice(-3)] : cycle;
  return `Would close a cycle: ${shown.join(' → ')}`;
}

/** Validates each record on its own, refuses repeats and cycles, and upserts the rest in one transaction. */
async function syncRecords<R extends z.ZodType, E extends CatalogRecord, Q extends z.ZodType<ListQuery>>(
  catalog: Catalog<R, E, Q>,
  em: EntityManager,
  caller: Caller,
  items: (z.output<R> | erp.InvalidRecord)[],
  submitted: unknown[],
): Promise<z.input<typeof erp.SyncResult>> {
  const errors: z.input<typeof erp.SyncItemError>[] = [];
  const rows: CatalogRow[] = [];
  const indexOf = new Map<string, number>();
  items.forEach((item, index) => {
    if (item instanceof erp.InvalidRecord) {
      errors.push({ index, external_id: sentExternalId(submitted[index]), errors: fieldErrors(item.error) });
      return;
    }
    // The record is kept as sent (`raw`), unknown fields included: none may hold what PostgreSQL cannot store.
    const unstorable = unstorableTextPaths(submitted[index]);
    if (unstorable.length > 0) {
      errors.push({
        index,
        external_id: sentExternalId(submitted[index]),
        errors: Object.fromEntries(unstorable.map((path) => [path.join('.'), [UNSTORABLE_TEXT]])),
      });
      return;
    }
    const row = catalog.row(item, submitted[index] as Record<string, unknown>);
    const first = indexOf.get(row.externalId);
    if (first !== undefined) {
      errors.push({
        index,
        external_id: row.externalId,
        errors: { external_id: [`Repeats the record at index ${first} of this batch`] },
      });
      return;
    }
    indexOf.set(row.externalId, index);
    rows.push(row);
  });
  const refused = (await catalog.refuse?.(em, rows)) ?? new Map<string, ItemRefusal>();
  for (const [externalId, refusal] of refused)
    errors.push({ index: indexOf.get(externalId)!, external_id: externalId, ...refusal });
  const accepted = rows.filter((row) => !refused.has(row.externalId));
  const outcome = await syncCatalog(em, catalog.entity as EntityName<CatalogRecord>, caller.company.id, accepted, {
    hierarchical: catalog.hierarchical,
  });
  for (const [externalId, cycle] of outcome.cycles) {
    errors.push({
      index: indexOf.get(externalId)!,
      external_id: externalId,
      errors: { parent_external_id: [describeCycle(cycle)] },
    });
  }
  return { synced: outcome.synced, errors: errors.sort((a, b) => a.index - b.index) };
}

/** The sync (POST) and list (GET) routes of one catalog. */
function catalogRoutes<R extends z.ZodType, E extends CatalogRecord, Q extends z.ZodType<ListQuery>>(
  catalog: Catalog<R, E, Q>,
): AnyRoute[] {
  return [
    defineRoute({
      method: 'post',
      path: `/${catalog.path}`,
      operationId: `sync${pascalCase(catalog.path)}`,
      summary: `Create or update ${catalog.path.replaceAll('-', ' ')}`,
      description:
        `Upserts by \`external_id\` within the company: ` +
        `an existing one is replaced by the record as sent (an absent optional field takes its default, null unless documented), a new one is created. ` +
        `Each record is validated on its own; invalid ones are reported in \`errors\` with their index and never block the others. ` +
        `1 to ${erp.MAX_SYNC_BATCH} records per request, written in one transaction.` +
        (catalog.hierarchical
          ? ' A parent may arrive after its children, in the same batch or a later one; a record whose parent link would close a cycle is refused.'
          : '') +
        (catalog.notes ? ` ${catalog.notes}` : ''),
      tags: TAGS,
      auth: 'erp-key',
      body: erp.syncRequest(catalog.record, `Erp${catalog.noun}`),
      response: erp.SyncResult,
      responseDescription: 'The batch was processed: how many records were synced and which were refused',
      handler: async ({ em, caller, body, ctx, deps }) => {
        const items = (typeof body === 'object' && body !== null && 'items' in body ? body.items : [body]) as (
          z.output<R> | erp.InvalidRecord
        )[];
        const submitted = submittedRecords(ctx.request.body);
        const { afterSync } = catalog;
        if (!afterSync) return syncRecords(catalog, em, caller, items, submitted);
        // The sync and what follows it commit together; the deliveries start once they have.
        const { result, after } = await em.transactional(async (tx) => ({
          result: await syncRecords(catalog, tx, caller, items, submitted),
          after: await afterSync(tx, caller.company.id, deps.config.publicUrl),
        }));
        const processes = temporalProcesses(deps.temporal, deps.config.webhookRetry);
        await processes.startDeliveries(after.deliveries);
        for (const document of after.questions) await processes.askAccounting(document);
        return result;
      },
    }),
    defineRoute({
      method: 'get',
      path: `/${catalog.path}`,
      operationId: `list${pascalCase(catalog.path)}`,
      summary: `List the synced ${catalog.path.replaceAll('-', ' ')}`,
      description: `Paginated${catalog.hierarchical ? '; each item says where it sits in the hierarchy (`depth`, `path`)' : ''}. For integrators to check what is synced.`,
      tags: TAGS,
      auth: 'erp-key',
      query: catalog.query,
      response: catalog.list,
      handler: async ({ em, query: parsed }) => {
        const query = parsed as z.output<Q>;
        const filters = {
          search: query.search,
          searchColumns: catalog.searchColumns,
          updatedSince: query.updated_since ? new Date(query.updated_since) : undefined,
          isActive: query.is_active,
          equals: catalog.equals?.(query),
        };
        const { records, total } = await findCatalogPage(em, catalog.entity, filters, catalog.order, {
          number: query.page,
          size: query.page_size,
        });
        return page(await catalog.present(em, records), total, query.page, query.page_size);
      },
    }),
  ];
}

/**
 * Purchase orders whose vendor the company has not synced: an order is crossed with its supplier's invoices through
 * that vendor, so an order naming an unknown one could never be matched.
 */
async function refuseUnknownVendors(em: EntityManager, rows: CatalogRow[]): Promise<Map<string, ItemRefusal>> {
  const vendorOf = (row: CatalogRow) => (typeof row.vendorExternalId === 'string' ? row.vendorExternalId : null);
  const named = [...new Set(rows.map(vendorOf).filter((vendor) => vendor !== null))];
  const synced = await syncedExternalIds(em, ErpVendor as EntityName<CatalogRecord>, named);
  const refused = new Map<string, ItemRefusal>();
  for (const row of rows) {
    const vendor = vendorOf(row);
    if (vendor === null || synced.has(vendor)) continue;
    refused.set(row.externalId, {
      code: 'unknown_vendor',
      errors: { vendor_external_id: [`Vendor ${vendor} is not synced: sync it (POST /erp/vendors) before its orders`] },
    });
  }
  return refused;
}

const CATALOGS = [
  defineCatalog({
    path: 'cost-centers',
    noun: 'CostCenter',
    entity: ErpCostCenter,
    record: erp.CostCenterRecord,
    row: present.costCenterRow,
    hierarchical: true,
    query: erp.HierarchyListQuery,
    list: erp.CostCenterList,
    searchColumns: ['externalId', 'code', 'name'],
    order: [{ code: 'asc nulls last' }],
    equals: (query) => ({ parentExternalId: query.parent_external_id }),
    present: async (em, records) => {
      const ancestry = await loadAncestry(em, ErpCostCenter, records);
      return records.map((record) => present.presentCostCenter(record, ancestry.get(record.externalId)!));
    },
  }),
  defineCatalog({
    path: 'vendors',
    noun: 'Vendor',
    entity: ErpVendor,
    record: erp.VendorRecord,
    row: present.vendorRow,
    hierarchical: false,
    query: erp.CatalogListQuery,
    list: erp.VendorList,
    searchColumns: ['externalId', 'name', 'identifierNumber'],
    order: [{ name: 'asc' }],
    present: async (_em, records) => records.map(present.presentVendor),
  }),
  defineCatalog({
    path: 'products',
    noun: 'Product',
    entity: ErpProduct,
    record: erp.ProductRecord,
    row: present.productRow,
    hierarchical: false,
    query: erp.CatalogListQuery,
    list: erp.ProductList,
    searchColumns: ['externalId', 'code', 'name'],
    order: [{ code: 'asc nulls last' }],
    present: async (_em, records) => records.map(present.presentProduct),
  }),
  defineCatalog({
    path: 'taxes',
    noun: 'Tax',
    entity: ErpTax,
    record: erp.TaxRecord,
    row: present.taxRow,
    hierarchical: false,
    query: erp.CatalogListQuery,
    list: erp.TaxList,
    searchColumns: ['externalId', 'code', 'name'],
    order: [{ code: 'asc nulls last' }],
    present: async (_em, records) => records.map(present.presentTax),
    // Vouchers that waited for a tax are proposed again, as after a book-account sync.
    afterSync: resumeVouchersAwaitingCatalog,
  }),
  defineCatalog({
    path: 'book-accounts',
    noun: 'BookAccount',
    entity: ErpBookAccount,
    record: erp.BookAccountRecord,
    row: present.bookAccountRow,
    hierarchical: true,
    query: erp.HierarchyListQuery,
    list: erp.BookAccountList,
    searchColumns: ['externalId', 'code', 'name'],
    order: [{ code: 'asc' }],
    equals: (query) => ({ parentExternalId: query.parent_external_id }),
    present: async (em, records) => {
      const ancestry = await loadAncestry(em, ErpBookAccount, records);
      return records.map((record) => present.presentBookAccount(record, ancestry.get(record.externalId)!));
    },
    // Vouchers that waited for a book account are proposed again, and handed over when the catalog now maps them.
    afterSync: resumeVouchersAwaitingCatalog,
  }),
  defineCatalog({
    path: 'payment-terms',
    noun: 'PaymentTerm',
    entity: ErpPaymentTerm,
    record: erp.PaymentTermRecord,
    row: present.paymentTermRow,
    hierarchical: false,
    query: erp.CatalogListQuery,
    list: erp.PaymentTermList,
    searchColumns: ['externalId', 'name'],
    order: [{ name: 'asc' }],
    present: async (_em, records) => records.map(present.presentPaymentTerm),
  }),
  defineCatalog({
    path: 'purchase-orders',
    noun: 'PurchaseOrder',
    entity: ErpPurchaseOrder,
    record: erp.PurchaseOrderRecord,
    row: present.purchaseOrderRow,
    hierarchical: false,
    query: erp.PurchaseOrderListQuery,
    list: erp.PurchaseOrderList,
    searchColumns: ['externalId', 'number'],
    order: [{ issueDate: 'desc nulls last' }, { number: 'asc' }],
    equals: (query) => ({ vendorExternalId: query.vendor_external_id, status: query.status }),
    present: async (_em, records) => records.map(present.presentPurchaseOrder),
    refuse: refuseUnknownVendors,
    notes:
      'A record whose `vendor_external_id` names a vendor the company has not synced is refused with `code` `unknown_vendor`: sync the vendor first (POST /erp/vendors).',
  }),
];

/** ERP catalog synchronisation: for each catalog a batch upsert and a paginated list, under `Authorization: ApiKey`. */
export const erpRoutes: AnyRoute[] = CATALOGS.flatMap((catalog) =>
  catalogRoutes(catalog as unknown as Catalog<z.ZodType, CatalogRecord, z.ZodType<ListQuery>>),
);
