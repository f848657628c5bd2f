import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { Document } from './document.entity.ts';

export type NoteAuthor = { name: string };

/** A comment and/or attached file that someone left on a document. */
export const DocumentNote = defineEntity({
  name: 'DocumentNote',
  tableName: 'document_notes',
  indexes: [{ properties: ['document', 'createdAt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document),
    comment: p.text().nullable(),
    filePath: p.string().length(2048).nullable(),
    fileName: p.string().length(255).nullable(),
    /** Where an uploaded attachment is kept; null when the note links to an outside URL. */
    storageKey: p.string().nullable(),
    createdBy: p.json<NoteAuthor>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type DocumentNote = InferEntity<typeof DocumentNote>;
