// What a fiscal document says, as one digest: two files that carry the same CUFE or SAT UUID are the same document
// only when they say the same thing, whatever their bytes (an AttachedDocument and the invoice it wraps, another
// indentation, another encoding).

import { createHash } from 'node:crypto';
import type { NormalizedDocument } from './normalized-document.ts';

/** The parts of a document's content, each compared whole. */
export const CONTENT_PARTS = ['number', 'dates', 'issuer', 'customer', 'amounts', 'lines', 'terms'] as const;
export type ContentPart = (typeof CONTENT_PARTS)[number];

/**
 * What a document's fiscal reference names: who issued it and to whom, its number and dates, its money, its lines and
 * what it refers to. Left out: the format's traceability facts (`metadata`: the envelope, signatures, stamp and
 * validation dates) and what depends on the reader (a documento soporte's CUDS check).
 */
export function documentContent(document: NormalizedDocument): Record<ContentPart, unknown> {
  return {
    number: { type: document.type, documentNumber: document.documentNumber },
    dates: { issueDate: document.issueDate, expirationDate: document.expirationDate },
    issuer: document.supplier,
    customer: document.customer,
    amounts: {
      currency: document.currency,
      exchangeRate: document.exchangeRate,
      ...(document.statedExchangeRate ? { statedExchangeRate: document.statedExchangeRate } : {}),
      totals: document.totals,
      prepaid: document.prepaid,
    },
    lines: document.lineItems,
    terms: {
      purchaseOrder: document.purchaseOrder,
      payment: document.payment,
      references: document.references,
      notes: document.finalNotes,
    },
  };
}

/** SHA-256 (hexadecimal) of the document's content, its keys in a fixed order. */
export function contentHash(document: NormalizedDocument): string {
  return createHash('sha256')
    .update(canonical(documentContent(document)))
    .digest('hex');
}

/** The parts in which two documents differ, in the order `documentContent` lists them; empty when they say the same. */
export function contentDifferences(stored: NormalizedDocument, incoming: NormalizedDocument): ContentPart[] {
  const before = documentContent(stored);
  const after = documentContent(incoming);
  return CONTENT_PARTS.filter((part) => canonical(before[part]) !== canonical(after[part]));
}

/** JSON with every object's keys sorted and bigints as their decimal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_, item: unknown) => {
    if (typeof item === 'bigint') return item.toString();
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const entries = Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries);
  });
}
