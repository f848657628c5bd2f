import type { z } from 'zod';
import type { DocumentNote } from '../../db/documents/note.entity.ts';
import type { NoteBody } from '../../read-models/document-schema.ts';
import { fileUrl } from '../../read-models/files.ts';

/** A note just added to a document; the document's own notes are rendered with it (document-json.ts). */
export function presentNote(note: DocumentNote, publicUrl: string): z.input<typeof NoteBody> {
  return {
    reference: note.id,
    comment: note.comment ?? null,
    file_path: note.storageKey ? fileUrl(publicUrl, note.storageKey) : (note.filePath ?? null),
    file_name: note.fileName ?? null,
    created_by: { name: note.createdBy.name },
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}
