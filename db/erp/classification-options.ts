import type { EntityName } from '@mikro-orm/core';
import type { EntityManager } from '../orm.ts';
import type { DecisionOption } from '../workflow-steps/workflow-step.entity.ts';
import { ErpBookAccount } from './book-account.entity.ts';
import { ErpCostCenter } from './cost-center.entity.ts';
import { ErpProduct } from './product.entity.ts';

/** The ERP catalogs a classification step decides from, by its field_name; their active records are the options. */
type NamedRecord = { externalId: string; name: string; isActive: boolean };
// Each catalog's own entity type; what is read here is what they share.
const CATALOGS = { cost_center: ErpCostCenter, book_account: ErpBookAccount, product: ErpProduct } as unknown as Record<
  string,
  EntityName<NamedRecord>
>;

/** How many options a step carries; past it they are a sample and any active record is a valid decision. */
export const OPTIONS_SHOWN = 500;

const catalogOf = (fieldName: string | null) =>
  fieldName && Object.hasOwn(CATALOGS, fieldName) ? CATALOGS[fieldName]! : null;

/** The options of a classification on a catalog field (null for any other field): all, or a sample when there are more. */
export async function catalogOptions(
  em: EntityManager,
  fieldName: string | null,
  only?: { nature: 'debit' },
): Promise<{ options: DecisionOption[]; complete: boolean } | null> {
  const catalog = catalogOf(fieldName);
  if (!catalog) return null;
  const records = await em.find(
    catalog,
    { isActive: true, ...onlyOf(fieldName, only) },
    { fields: ['externalId', 'name'], orderBy: { name: 'asc', externalId: 'asc' }, limit: OPTIONS_SHOWN + 1 },
  );
  const options = records.slice(0, OPTIONS_SHOWN).map((record) => ({ value: record.externalId, label: record.name }));
  return { options, complete: records.length <= OPTIONS_SHOWN };
}

/** Book accounts of one nature (what the accounting agent's question offers); no filter on other catalogs. */
const onlyOf = (fieldName: string | null, only: { nature: 'debit' } | undefined) =>
  only && fieldName === 'book_account' ? { nature: only.nature } : {};

/** Labels of those values that are active records of the field's catalog, by value. */
export async function activeCatalogLabels(
  em: EntityManager,
  fieldName: string | null,
  values: string[],
  only?: { nature: 'debit' },
): Promise<Map<string, string>> {
  const catalog = catalogOf(fieldName);
  if (!catalog || values.length === 0) return new Map();
  const records = await em.find(
    catalog,
    { isActive: true, externalId: { $in: values }, ...onlyOf(fieldName, only) },
    { fields: ['externalId', 'name'] },
  );
  return new Map(records.map((record) => [record.externalId, record.name]));
}
