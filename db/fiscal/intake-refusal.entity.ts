import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/**
 * A file fiscal intake passed over, with why: recorded once per file (its path in the mail or package and a digest of
 * its bytes), so that a sync goes on past it and the operator can list what was not taken (`ops fiscal intake`).
 */
export const IntakeRefusal = defineEntity({
  name: 'IntakeRefusal',
  tableName: 'intake_refusals',
  uniques: [{ properties: ['company', 'name', 'fingerprint'] }],
  indexes: [{ properties: ['company', 'recordedAt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    /** Where the file was: `<mail item or package>/<attachment>/<entry>`. */
    name: p.text(),
    /** SHA-256 of the file's bytes, or of its name when there were no bytes to read. */
    fingerprint: p.string().length(64),
    /** A skip reason (`invalid_document`, `refused`, `unreadable`, …) or `import_failed`. */
    reason: p.string(),
    detail: p.text().nullable(),
    recordedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type IntakeRefusal = InferEntity<typeof IntakeRefusal>;
