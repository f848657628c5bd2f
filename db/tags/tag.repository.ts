import type { Company } from '../companies/company.entity.ts';
import type { Document } from '../documents/document.entity.ts';
import type { EntityManager } from '../orm.ts';
import { Payment } from '../payments/payment.entity.ts';
import { DocumentTag } from './document-tag.entity.ts';
import { PaymentTag } from './payment-tag.entity.ts';
import { ADMITTED_TAG, Tag, normalizeTagName } from './tag.entity.ts';

/**
 * The company's tags with these names, created when missing; concurrent callers end up with the same rows.
 * `admitido` is always the system tag, whoever names it first.
 */
export async function ensureTags(
  em: EntityManager,
  company: Company,
  names: string[],
  options: { system?: boolean } = {},
): Promise<Tag[]> {
  const byName = new Map(names.map((name) => [normalizeTagName(name), name.trim()]));
  if (byName.size === 0) return [];
  await em.upsertMany(
    Tag,
    [...byName].map(([normalizedName, name]) => ({
      company,
      name,
      normalizedName,
      isSystem: (options.system ?? false) || normalizedName === ADMITTED_TAG,
    })),
    { onConflictFields: ['company', 'normalizedName'], onConflictAction: 'ignore' },
  );
  return em.find(Tag, { normalizedName: { $in: [...byName.keys()] } });
}

/**
 * Puts tags on a document and on every payment of its payables (additive, idempotent per tag).
 * Returns the names that the document did not have before.
 */
export async function tagDocument(
  em: EntityManager,
  company: Company,
  document: Document,
  tags: Tag[],
): Promise<string[]> {
  if (tags.length === 0) return [];
  const before = await em.find(DocumentTag, { document, tag: { $in: tags } }, { populate: ['tag'] });
  const had = new Set(before.map((link) => link.tag.id));
  await em.upsertMany(
    DocumentTag,
    tags.map((tag) => ({ company, document, tag })),
    { onConflictFields: ['document', 'tag'], onConflictAction: 'ignore' },
  );
  const payments = await em.find(Payment, { payable: { document } }, { fields: ['id'] });
  if (payments.length) {
    await em.upsertMany(
      PaymentTag,
      payments.flatMap((payment) => tags.map((tag) => ({ company, payment, tag }))),
      { onConflictFields: ['payment', 'tag'], onConflictAction: 'ignore' },
    );
  }
  return tags.filter((tag) => !had.has(tag.id)).map((tag) => tag.name);
}
