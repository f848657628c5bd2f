// Entry point of the fiscal parsers: one XML file in, one normalized document or payment complement out.

import { parseAttachedDocument } from './attached-document.ts';
import { parseCfdi } from './cfdi.ts';
import { isUblDocumentRoot, parseDianDocument } from './dian-ubl.ts';
import { FiscalDocumentError } from './errors.ts';
import type { FiscalParseContext, ParsedFiscalFile } from './normalized-document.ts';
import { parseXml } from './xml.ts';

export { FiscalDocumentError, type FiscalErrorCode } from './errors.ts';
export { MAX_FISCAL_XML_BYTES } from './xml.ts';

/**
 * Parses a received fiscal XML (DIAN UBL 2.1 invoice, note or documento soporte, DIAN AttachedDocument, CFDI 4.0
 * I/E/P), detecting the format from its root element. `context` tells a documento soporte's parties apart and lets
 * its CUDS be recomputed.
 */
export function parseFiscalDocument(
  xml: string | Uint8Array,
  fileName: string,
  context: FiscalParseContext = {},
): ParsedFiscalFile {
  const root = parseXml(xml, fileName);
  if (isUblDocumentRoot(root)) return { kind: 'document', document: parseDianDocument(root, fileName, context) };
  if (root.localName === 'AttachedDocument')
    return { kind: 'document', document: parseAttachedDocument(root, fileName, context) };
  if (root.localName === 'Comprobante') return parseCfdi(root, fileName);
  throw new FiscalDocumentError(
    'unsupported_document',
    fileName,
    root.path,
    `${root.name} is not a fiscal document this service reads: expected a DIAN UBL 2.1 Invoice, CreditNote, DebitNote or AttachedDocument, or a CFDI 4.0 Comprobante`,
  );
}
