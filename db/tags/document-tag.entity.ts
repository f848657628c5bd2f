import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { uuidKey } from '../ids.ts';
import { Tag } from './tag.entity.ts';

/** A tag put on a document. An explicit entity, not a many-to-many pivot, so that it carries its company. */
export const DocumentTag = defineEntity({
  name: 'DocumentTag',
  tableName: 'document_tags',
  uniques: [{ properties: ['document', 'tag'] }],
  // Serves the `tags` and `is_admited` filters, which go from a tag to its documents.
  indexes: [{ properties: ['tag', 'document'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document),
    tag: () => p.manyToOne(Tag),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type DocumentTag = InferEntity<typeof DocumentTag>;
