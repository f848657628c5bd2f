// The real fiscal XML of test/fixtures, parsed by the product's own parsers: the templates every seeded or imported
// document is built from.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Country } from '../db/companies/company.entity.ts';
import type { NormalizedDocument } from '../fiscal/normalized-document.ts';
import { parseFiscalDocument } from '../fiscal/parse.ts';

const FIXTURES = new URL('../test/fixtures/', import.meta.url).pathname;

/** Fixture files per country, with how often each is used (invoices dominate what a company receives). */
const TEMPLATE_FILES: Record<Country, { file: string; weight: number }[]> = {
  COL: [
    { file: 'dian/stenfrank-invoice_unsigned_dian_v2.xml', weight: 0.85 },
    { file: 'dian/stenfrank-creditnote_signed_dian_v2.xml', weight: 0.15 },
  ],
  MEX: [
    { file: 'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml', weight: 0.6 },
    { file: 'cfdi/cfdiutils-cfdi40-valid-ingreso.xml', weight: 0.4 },
  ],
};

/** The CFDI files the import benchmark varies: stamped invoices (Ingreso) of two issuers. */
export const CFDI_IMPORT_FILES = [
  'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml',
  'cfdi/cfdiutils-cfdi40-valid-ingreso.xml',
];

export interface Template {
  file: string;
  weight: number;
  document: NormalizedDocument;
}

export function readFixture(file: string): string {
  return readFileSync(join(FIXTURES, file), 'utf8');
}

export function templates(country: Country): Template[] {
  return TEMPLATE_FILES[country].map(({ file, weight }) => {
    const parsed = parseFiscalDocument(readFixture(file), file);
    if (parsed.kind !== 'document') throw new Error(`${file} is not a document`);
    return { file, weight, document: parsed.document };
  });
}

/** A CUFE (96 hex characters, SHA-384 as DIAN's) or a SAT fiscal UUID, unique per seed string. */
export function fiscalReferenceFor(country: Country, seed: string): string {
  if (country === 'COL') return createHash('sha384').update(seed).digest('hex');
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** One of the CFDI fixtures with a new stamp UUID (and folio, where it has one): a distinct received invoice. */
export function cfdiVariant(xml: string, uuid: string, folio: number): string {
  return xml
    .replace(/(<tfd:TimbreFiscalDigital\b[^>]*\bUUID=")[^"]*"/, `$1${uuid.toUpperCase()}"`)
    .replace(/(<cfdi:Comprobante\b[^>]*\bFolio=")[^"]*"/, `$1${folio}"`);
}
