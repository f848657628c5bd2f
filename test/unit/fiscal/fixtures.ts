// Shared helpers of the fiscal parser tests: read a real fixture, catch the parser's refusal.

import { readFileSync } from 'node:fs';
import { FiscalDocumentError } from '../../../fiscal/errors.ts';
import { parseFiscalDocument } from '../../../fiscal/parse.ts';
import type { NormalizedDocument, NormalizedPaymentComplement } from '../../../fiscal/normalized-document.ts';

/** The text of a fixture under test/fixtures (e.g. `dian/stenfrank-invoice_unsigned_dian_v2.xml`). */
export function fixtureText(path: string): string {
  return readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');
}

/** The bytes of a fixture, as a client would upload them. */
export function fixtureBytes(path: string): Uint8Array {
  return new Uint8Array(readFileSync(new URL(`../../fixtures/${path}`, import.meta.url)));
}

/** Parses XML expected to be an invoice or note. */
export function parseDocument(xml: string | Uint8Array, fileName: string): NormalizedDocument {
  const parsed = parseFiscalDocument(xml, fileName);
  if (parsed.kind !== 'document') throw new Error(`expected a document, got ${parsed.kind}`);
  return parsed.document;
}

/** Parses XML expected to be a CFDI payment complement. */
export function parseComplement(xml: string | Uint8Array, fileName: string): NormalizedPaymentComplement {
  const parsed = parseFiscalDocument(xml, fileName);
  if (parsed.kind !== 'payment_complement') throw new Error(`expected a payment complement, got ${parsed.kind}`);
  return parsed.complement;
}

/** The FiscalDocumentError thrown by parsing this XML; fails when it parses or throws something else. */
export function refusal(xml: string | Uint8Array, fileName: string): FiscalDocumentError {
  try {
    parseFiscalDocument(xml, fileName);
  } catch (error) {
    if (error instanceof FiscalDocumentError) return error;
    throw error;
  }
  throw new Error(`expected ${fileName} to be refused`);
}

/** Replaces exactly one occurrence of `search`, so a broken variant cannot silently miss its target. */
export function replaceOnce(text: string, search: string | RegExp, replacement: string): string {
  const matches =
    typeof search === 'string'
      ? text.split(search).length - 1
      : (text.match(new RegExp(search.source, `${search.flags.replace('g', '')}g`)) ?? []).length;
  if (matches !== 1) throw new Error(`expected exactly one match of ${String(search)}, found ${matches}`);
  return text.replace(search, replacement);
}
