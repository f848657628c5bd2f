import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';

const CFDI_INVOICE = new URL('../fixtures/cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml', import.meta.url)
  .pathname;

let orm: Orm;
beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 2, statementTimeoutMs: 30_000, debug: false });
});
afterAll(() => orm.close());

describe('documents import, several at once', () => {
  it('imports invoices of a supplier new to the company in parallel: one beneficiary, every document created', async () => {
    const { company } = await makeCompany(orm, { country: 'MEX' });
    const xml = readFileSync(CFDI_INVOICE, 'utf8');
    const dir = tempDir('ap-import-concurrent-');
    // The same supplier's invoices, each with its own stamp UUID and folio: the CLI imports four at a time.
    const files = Array.from({ length: 8 }, (_, n) => {
      const file = join(dir, `invoice-${n}.xml`);
      writeFileSync(
        file,
        xml
          .replace(/(<tfd:TimbreFiscalDigital\b[^>]*\bUUID=")[^"]*"/, `$1${randomUUID().toUpperCase()}"`)
          .replace(/(\bFolio=")[^"]*"/, `$1${1000 + n}"`),
      );
      return file;
    });
    const result = await ops('documents', 'import', '--company', company.id, ...files);
    expect(result.code).toBe(0);
    expect(result.stdout.errors).toEqual([]);
    expect(result.stdout.documents).toHaveLength(8);
    expect(result.stdout.documents.every((document: { created: boolean }) => document.created)).toBe(true);
    expect(await companyEm(orm, company.id).count(Beneficiary, {})).toBe(1);
  });
});
