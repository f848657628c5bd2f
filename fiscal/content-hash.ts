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
  const hash = createHash('sha256');
  // Written to the digest piece by piece: a document of thousands of lines is never one string.
  let pending = '';
  writeCanonical(documentContent(document), (text) => {
    pending += text;
    if (pending.length >= 65_536) {
      hash.update(pending);
      pending = '';
    }
  });
  return hash.update(pending).digest('hex');
}

/** The parts in which two documents differ, in the order `documentContent` lists them; empty when they say the same. */
export function contentDifferences(stored: NormalizedDocument, incoming: NormalizedDocument): ContentPart[] {
  const before = documentContent(stored);
  const after = documentContent(incoming);
  return CONTENT_PARTS.filter((part) => canonical(before[part]) !== canonical(after[part]));
}

function canonical(value: unknown): string {
  const pieces: string[] = [];
  writeCanonical(value, (text) => pieces.push(text));
  return pieces.join('');
}

/** Writes `value` as JSON with every object's keys sorted and bigints as their decimal text (in quotes). */
function writeCanonical(value: unknown, write: (text: string) => void): void {
  const item = hasToJson(value) ? value.toJSON() : value;
  if (typeof item === 'bigint') return write(JSON.stringify(item.toString()));
  if (item === null || typeof item !== 'object') return write(JSON.stringify(item) ?? 'null');
  if (Array.isArray(item)) {
    write('[');
    item.forEach((element: unknown, at) => {
      if (at > 0) write(',');
      writeCanonical(omitted(element) ? null : element, write);
    });
    return write(']');
  }
  write('{');
  let first = true;
  for (const key of Object.keys(item).sort()) {
    const field = (item as Record<string, unknown>)[key];
    if (omitted(field)) continue;
    write(`${first ? '' : ','}${JSON.stringify(key)}:`);
    first = false;
    writeCanonical(field, write);
  }
  write('}');
}

/** What JSON leaves out of an object (and writes as null in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

function hasToJson(value: unknown): value is { toJSON(): unknown } {
  return typeof value === 'object' && value !== null && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}
