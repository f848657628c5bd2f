import type { EntityName, FilterQuery, QueryOrderMap } from '@mikro-orm/core';
import { uuidv7 } from '../ids.ts';
import { runStatement } from '../prepared.ts';
import type { EntityManager } from '../orm.ts';
import type { ErpBookAccount } from './book-account.entity.ts';
import type { ErpCostCenter } from './cost-center.entity.ts';
import { ancestryOf, cyclesThrough, unloadedAncestors, type Ancestry } from './hierarchy.ts';

/** The columns every catalog row carries, whatever the catalog. */
export interface CatalogRow {
  externalId: string;
  isActive: boolean;
  /** The record as submitted. */
  raw: Record<string, unknown>;
  parentExternalId?: string | null;
  [column: string]: unknown;
}

/** What the catalog repository needs of an entity; every catalog is unique by (company, externalId). */
export interface CatalogRecord {
  externalId: string;
  updatedAt: Date;
}
type Linked = { externalId: string; parentExternalId?: string | null };
/** The catalogs whose records have a parent. */
export type HierarchicalCatalog = typeof ErpCostCenter | typeof ErpBookAccount;

export interface SyncOutcome {
  synced: number;
  /** Rows refused because their parent link would close a cycle: external_id → the cycle. */
  cycles: Map<string, string[]>;
}

/** Columns an update must keep: the row's identity and when it first arrived. */
const KEPT_ON_UPDATE = new Set(['id', 'company', 'externalId', 'createdAt']);

/**
 * Upserts a batch of catalog rows of one company by (company, external_id), in one transaction and one statement.
 * Hierarchical catalogs first refuse the rows whose parent link would close a cycle with the batch or what is stored.
 */
export async function syncCatalog(
  em: EntityManager,
  entity: EntityName<CatalogRecord>,
  companyId: string,
  rows: CatalogRow[],
  options: { hierarchical: boolean },
): Promise<SyncOutcome> {
  return em.transactional(async (tx) => {
    let cycles = new Map<string, string[]>();
    if (options.hierarchical) {
      // Two concurrent batches could each close half of a cycle: one writer per company and catalog at a time.
      await tx.execute('select pg_advisory_xact_lock(hashtext(?), hashtext(?))', [
        tx.getMetadata(entity).tableName,
        companyId,
      ]);
      cycles = await cyclesClosedBy(tx, entity as unknown as EntityName<Linked>, rows);
    }
    // A stable order keeps concurrent batches from locking the same rows in opposite orders.
    const accepted = rows
      .filter((row) => !cycles.has(row.externalId))
      .sort((a, b) => (a.externalId < b.externalId ? -1 : a.externalId > b.externalId ? 1 : 0));
    if (accepted.length > 0) await upsertRows(tx, entity, companyId, accepted);
    return { synced: accepted.length, cycles };
  });
}

/**
 * Inserts the rows, or replaces the stored ones with the same (company, external_id), in one statement whose one
 * parameter is the batch as JSON, read as rows of the table: a batch may be 10 MB of text, which the ORM's upsert
 * would escape into the statement's text and copy many times over on the way.
 */
async function upsertRows(
  em: EntityManager,
  entity: EntityName<CatalogRecord>,
  companyId: string,
  rows: CatalogRow[],
): Promise<void> {
  const meta = em.getMetadata(entity);
  const fields = new Map(meta.props.map((prop) => [prop.name as string, prop.fieldNames[0]!]));
  const column = (property: string) => fields.get(property)!;
  const now = new Date();
  const stamped = rows.map((row) => ({ ...row, id: uuidv7(), company: companyId, createdAt: now, updatedAt: now }));
  const properties = [...new Set(stamped.flatMap((row) => Object.keys(row)))];
  const columns = properties.map((property) => `"${column(property)}"`);
  const merged = properties.filter((property) => !KEPT_ON_UPDATE.has(property)).map(column);
  const batch = stamped.map((row) =>
    Object.fromEntries(Object.entries(row).map(([property, value]) => [column(property), value])),
  );
  await runStatement(
    em,
    `insert into "${meta.tableName}" (${columns.join(', ')})
     select ${columns.join(', ')} from jsonb_populate_recordset(null::"${meta.tableName}", :batch::jsonb)
     on conflict ("company_id", "external_id") do update set ${merged.map((name) => `"${name}" = excluded."${name}"`).join(', ')}`,
    { batch: JSON.stringify(batch) },
  );
}

/**
 * The rows whose new parent link would put them on a cycle, given the rest of the batch and the stored links.
 * Stored links are loaded level by level from the batch upwards: as many queries as the hierarchy is deep.
 */
async function cyclesClosedBy(
  em: EntityManager,
  entity: EntityName<Linked>,
  rows: CatalogRow[],
): Promise<Map<string, string[]>> {
  const proposed = new Map(rows.map((row) => [row.externalId, row.parentExternalId ?? null]));
  const stored = new Map<string, string | null>();
  const refused = new Map<string, string[]>();
  const parentOf = (id: string) => (proposed.has(id) && !refused.has(id) ? proposed.get(id)! : stored.get(id));
  for (;;) {
    const accepted = [...proposed.keys()].filter((id) => !refused.has(id));
    for (
      let unloaded = unloadedAncestors(accepted, parentOf);
      unloaded.size > 0;
      unloaded = unloadedAncestors(accepted, parentOf)
    ) {
      const found = await parentLinks(em, entity, [...unloaded]);
      for (const id of unloaded) stored.set(id, found.get(id) ?? null);
    }
    const cycles = cyclesThrough(accepted, parentOf);
    // Refusing a row keeps its stored link, which may close another cycle: check again until none is left.
    if (cycles.size === 0) return refused;
    for (const [id, cycle] of cycles) refused.set(id, cycle);
  }
}

/** The stored parent links of these records (absent ones are not in the map). */
async function parentLinks(
  em: EntityManager,
  entity: EntityName<Linked>,
  externalIds: string[],
): Promise<Map<string, string | null>> {
  const found = await em.find(entity, { externalId: { $in: externalIds } } as FilterQuery<Linked>, {
    fields: ['externalId', 'parentExternalId'],
    disableIdentityMap: true,
  });
  return new Map(found.map((record) => [record.externalId, record.parentExternalId ?? null]));
}

/** Which of these external_ids the company has synced into a catalog, active or not (one query). */
export async function syncedExternalIds(
  em: EntityManager,
  entity: EntityName<CatalogRecord>,
  externalIds: string[],
): Promise<Set<string>> {
  if (externalIds.length === 0) return new Set();
  const found = await em.find(entity, { externalId: { $in: externalIds } } as FilterQuery<CatalogRecord>, {
    fields: ['externalId'],
    disableIdentityMap: true,
  });
  return new Set(found.map((record) => record.externalId));
}

/** Filters every catalog list offers. */
export interface CatalogFilters {
  /** Case-insensitive text in any of `searchColumns`. */
  search?: string;
  searchColumns: string[];
  updatedSince?: Date;
  isActive?: boolean;
  /** Exact matches on catalog-specific columns (e.g. parentExternalId, vendorExternalId). */
  equals?: Record<string, string | undefined>;
}

/** One page of a catalog, in the catalog's order with external_id breaking ties, and the total. */
export async function findCatalogPage<T extends CatalogRecord>(
  em: EntityManager,
  entity: EntityName<T>,
  filters: CatalogFilters,
  order: QueryOrderMap<T>[],
  page: { number: number; size: number },
): Promise<{ records: T[]; total: number }> {
  const and: Record<string, unknown>[] = [];
  if (filters.search) {
    const pattern = `%${filters.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    and.push({ $or: filters.searchColumns.map((column) => ({ [column]: { $ilike: pattern } })) });
  }
  if (filters.updatedSince) and.push({ updatedAt: { $gte: filters.updatedSince } });
  if (filters.isActive !== undefined) and.push({ isActive: filters.isActive });
  for (const [column, value] of Object.entries(filters.equals ?? {}))
    if (value !== undefined) and.push({ [column]: value });
  const [records, total] = await em.findAndCount(entity, (and.length ? { $and: and } : {}) as FilterQuery<T>, {
    orderBy: [...order, { externalId: 'asc' } as QueryOrderMap<T>],
    limit: page.size,
    offset: (page.number - 1) * page.size,
  });
  return { records, total };
}

/** Where each record of a hierarchical catalog sits, loading its ancestors level by level (one query per level). */
export async function loadAncestry(
  em: EntityManager,
  entity: HierarchicalCatalog,
  records: Linked[],
): Promise<Map<string, Ancestry>> {
  const known = new Map(records.map((record) => [record.externalId, record.parentExternalId ?? null]));
  const looked = new Set(known.keys());
  for (let missing = unlooked(known, looked); missing.length > 0; missing = unlooked(known, looked)) {
    for (const id of missing) looked.add(id);
    for (const [id, parent] of await parentLinks(em, entity as unknown as EntityName<Linked>, missing))
      known.set(id, parent);
  }
  return new Map(records.map((record) => [record.externalId, ancestryOf(record.externalId, known)]));
}

/** Parents referenced by what is loaded that nobody has looked up yet. */
function unlooked(known: Map<string, string | null>, looked: Set<string>): string[] {
  return [...new Set([...known.values()].filter((parent): parent is string => parent !== null && !looked.has(parent)))];
}
