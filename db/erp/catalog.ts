import { p } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidv7 } from '../ids.ts';

/** The columns every ERP catalog shares; each catalog declares its unique (company, externalId). */
export function catalogProperties() {
  return {
    id: p
      .uuid()
      .primary()
      .onCreate(() => uuidv7()),
    company: () => p.manyToOne(Company),
    /** The ERP's own id; references between catalogs use it, since records may arrive in any order. */
    externalId: p.string(),
    /** Inactive records stay for history but are not offered as options. */
    isActive: p.boolean().default(true),
    /** The whole record as last submitted. */
    raw: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  };
}
