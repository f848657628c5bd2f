import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/** Added by POST /documents/{reference}/acknowledge (or as a tag of that name); its presence makes a document `is_admited`. */
export const ADMITTED_TAG = 'admitido';

export const normalizeTagName = (name: string) => name.trim().toLowerCase();

/** A label of the company, put on documents and propagated to their payments. */
export const Tag = defineEntity({
  name: 'Tag',
  tableName: 'tags',
  // Names are unique per company regardless of case: `Urgente` and `urgente` are one tag.
  uniques: [{ properties: ['company', 'normalizedName'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    /** As first given (trimmed). */
    name: p.string(),
    /** Lower-cased name: what uniqueness and the tags filter compare. */
    normalizedName: p.string(),
    /** Created and used by the service itself (e.g. `admitido`). */
    isSystem: p.boolean().default(false),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Tag = InferEntity<typeof Tag>;
