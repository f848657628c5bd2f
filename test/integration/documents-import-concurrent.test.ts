import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { makeCompany } from '../helpers/companies.ts';
import { writeCfdiInvoices } from '../helpers/cfdi-files.ts';
import { ops } from '../helpers/ops.ts';

let orm: Orm;
beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 2, statementTimeoutMs: 30_000, debug: false });
});
afterAll(() => orm.close());

describe('documents import, several at once', () => {
  it('imports invoices of a supplier new to the company in parallel: one beneficiary, every document created', async () => {
    const { company } = await makeCompany(orm, { country: 'MEX' });
    // The same supplier's invoices, each with its own stamp UUID and folio: the CLI imports several at a time.
    const { files } = writeCfdiInvoices(8, 1000);
    const result = await ops('documents', 'import', '--company', company.id, ...files);
    expect(result.code).toBe(0);
    expect(result.stdout.errors).toEqual([]);
    expect(result.stdout.documents).toHaveLength(8);
    expect(result.stdout.documents.every((document: { created: boolean }) => document.created)).toBe(true);
    expect(await companyEm(orm, company.id).count(Beneficiary, {})).toBe(1);
  });
});
