import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** A real DIAN UBL 2.1 invoice (see test/fixtures/SOURCES.md); its variants differ only in number and CUFE. */
const SOURCE = new URL('../fixtures/dian/stenfrank-invoice_unsigned_dian_v2.xml', import.meta.url);
const NUMBER = '<cbc:ID>SETP990000008</cbc:ID>';
const CUFE = /(<cbc:UUID schemeID="2" schemeName="CUFE-SHA384">)[0-9a-f]{96}(<\/cbc:UUID>)/;

export interface InvoiceFile {
  path: string;
  documentNumber: string;
  /** The CUFE, lowercase, as the API stores it. */
  cufe: string;
}

/**
 * Writes `count` distinct invoices: the fixture with its own document number and CUFE each. A receiver cannot
 * recompute a supplier's CUFE, so only its shape is checked on import, and the rest of the file stays real.
 */
export function writeInvoices(dir: string, count: number, runId: string): InvoiceFile[] {
  const xml = readFileSync(SOURCE, 'utf8');
  if (!xml.includes(NUMBER) || !CUFE.test(xml))
    throw new Error('The invoice fixture no longer has the number and CUFE the fault suite varies');
  mkdirSync(dir, { recursive: true });
  return Array.from({ length: count }, (_, index) => {
    const documentNumber = `FLT${String(index + 1).padStart(6, '0')}`;
    const cufe = createHash('sha384').update(`${runId}/${documentNumber}`).digest('hex');
    const path = join(dir, `${documentNumber}.xml`);
    writeFileSync(path, xml.replace(NUMBER, `<cbc:ID>${documentNumber}</cbc:ID>`).replace(CUFE, `$1${cufe}$2`));
    return { path, documentNumber, cufe };
  });
}
