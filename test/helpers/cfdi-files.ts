import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../platform/temp-dir.ts';

const CFDI_INVOICE = new URL('../fixtures/cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml', import.meta.url)
  .pathname;

/**
 * `count` invoices of one supplier written to a new directory, each with its own stamp UUID and folio (from
 * `folioBase`): distinct documents for an import. Answers the files and what each holds.
 */
export function writeCfdiInvoices(count: number, folioBase: number): { files: string[]; contents: string[] } {
  const xml = readFileSync(CFDI_INVOICE, 'utf8');
  const dir = tempDir('ap-cfdi-invoices-');
  const contents = Array.from({ length: count }, (_, n) =>
    xml
      .replace(/(<tfd:TimbreFiscalDigital\b[^>]*\bUUID=")[^"]*"/, `$1${randomUUID().toUpperCase()}"`)
      .replace(/(\bFolio=")[^"]*"/, `$1${folioBase + n}"`),
  );
  const files = contents.map((content, n) => {
    const file = join(dir, `invoice-${n}.xml`);
    writeFileSync(file, content);
    return file;
  });
  return { files, contents };
}
