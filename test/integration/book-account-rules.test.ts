// What people taught the accounting agent per supplier: rules learnt (the newest decision wins), read back for one
// supplier, and counted across the company's other suppliers, each in one indexed statement.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { BookAccountRule } from '../../db/accounting/book-account-rule.entity.ts';
import {
  learnRules,
  rulesFor,
  rulesForStatement,
  rulesOfOtherSuppliers,
  rulesOfOtherSuppliersStatement,
  type RuleStatement,
} from '../../db/accounting/book-account-rules.ts';
import { uuidv7 } from '../../db/ids.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { inTransaction, positional } from '../../db/prepared.ts';
import { makeCompany } from '../helpers/companies.ts';
import { seedBeneficiary } from '../helpers/payments.ts';

let orm: Orm;
beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 4, statementTimeoutMs: 30_000, debug: false });
});
afterAll(() => orm.close());

async function companyWithSuppliers(count: number) {
  const { company } = await makeCompany(orm);
  const suppliers = [];
  for (let index = 0; index < count; index++)
    suppliers.push(await seedBeneficiary(orm, company, { name: `Proveedor ${index}` }));
  return { company, suppliers, em: () => companyEm(orm, company.id) };
}

describe('learnRules and rulesFor', () => {
  it('learns a supplier its keys, the newest decision replacing the older one, and reads them back', async () => {
    const { company, suppliers, em } = await companyWithSuppliers(2);
    const [supplier, other] = suppliers as [(typeof suppliers)[number], (typeof suppliers)[number]];
    const step = uuidv7();
    const learnt = await learnRules(em(), {
      companyId: company.id,
      beneficiaryId: supplier.id,
      rules: [
        { matchKind: 'product', matchKey: ' P-1 ', bookAccountExternalId: 'BA-1435' },
        { matchKind: 'description', matchKey: 'Servicio de  TRANSPORTE', bookAccountExternalId: 'BA-5135' },
        // The same key again in one call: the last one given wins.
        { matchKind: 'description', matchKey: 'servicio de transporte', bookAccountExternalId: 'BA-5140' },
        // Nothing to match by, or no account: ignored.
        { matchKind: 'description', matchKey: '  ', bookAccountExternalId: 'BA-1' },
        { matchKind: 'product', matchKey: 'P-2', bookAccountExternalId: ' ' },
      ],
      source: 'classification',
      sourceReference: step,
    });
    expect(learnt).toBe(2);
    const keys = [
      { matchKind: 'product' as const, matchKey: 'P-1' },
      { matchKind: 'description' as const, matchKey: 'Servicio de transporte' },
      { matchKind: 'product' as const, matchKey: 'P-9' },
      { matchKind: 'description' as const, matchKey: '' },
    ];
    const read = await rulesFor(em(), { companyId: company.id, beneficiaryId: supplier.id, keys });
    expect(read.sort((a, b) => a.matchKind.localeCompare(b.matchKind))).toEqual([
      {
        matchKind: 'description',
        matchKey: 'servicio de transporte',
        bookAccountExternalId: 'BA-5140',
        source: 'classification',
        sourceReference: step,
        updatedAt: expect.any(Date),
      },
      {
        matchKind: 'product',
        matchKey: 'P-1',
        bookAccountExternalId: 'BA-1435',
        source: 'classification',
        sourceReference: step,
        updatedAt: expect.any(Date),
      },
    ]);
    // Another supplier has learnt nothing.
    expect(await rulesFor(em(), { companyId: company.id, beneficiaryId: other.id, keys })).toEqual([]);

    // A later voucher teaches otherwise: the key now goes to its account, and the rule names what taught it.
    const entry = uuidv7();
    await learnRules(em(), {
      companyId: company.id,
      beneficiaryId: supplier.id,
      rules: [{ matchKind: 'product', matchKey: 'P-1', bookAccountExternalId: 'BA-1440' }],
      source: 'voucher',
      sourceReference: entry,
    });
    const [product] = await rulesFor(em(), {
      companyId: company.id,
      beneficiaryId: supplier.id,
      keys: [{ matchKind: 'product', matchKey: 'P-1' }],
    });
    expect(product).toMatchObject({ bookAccountExternalId: 'BA-1440', source: 'voucher', sourceReference: entry });
    expect(await em().count(BookAccountRule, { beneficiary: supplier.id })).toBe(2);
    expect(
      await learnRules(em(), {
        companyId: company.id,
        beneficiaryId: supplier.id,
        rules: [],
        source: 'voucher',
        sourceReference: entry,
      }),
    ).toBe(0);
  });

  it("never reads another company's rules", async () => {
    const a = await companyWithSuppliers(1);
    const b = await makeCompany(orm);
    await learnRules(a.em(), {
      companyId: a.company.id,
      beneficiaryId: a.suppliers[0]!.id,
      rules: [{ matchKind: 'product', matchKey: 'P-1', bookAccountExternalId: 'BA-1435' }],
      source: 'classification',
      sourceReference: uuidv7(),
    });
    const keys = [{ matchKind: 'product' as const, matchKey: 'P-1' }];
    expect(
      await rulesFor(companyEm(orm, b.company.id), {
        companyId: b.company.id,
        beneficiaryId: a.suppliers[0]!.id,
        keys,
      }),
    ).toEqual([]);
    expect(
      await rulesOfOtherSuppliers(companyEm(orm, b.company.id), {
        companyId: b.company.id,
        beneficiaryId: null,
        keys,
        limit: 10,
      }),
    ).toEqual([]);
  });
});

describe('rulesOfOtherSuppliers', () => {
  it("counts, per key, the accounts the company's other suppliers send it to, most common first and bounded", async () => {
    const { company, suppliers, em } = await companyWithSuppliers(5);
    const teach = (
      index: number,
      rules: { matchKind: 'product' | 'description'; matchKey: string; bookAccountExternalId: string }[],
    ) =>
      learnRules(em(), {
        companyId: company.id,
        beneficiaryId: suppliers[index]!.id,
        rules,
        source: 'classification',
        sourceReference: uuidv7(),
      });
    await teach(0, [{ matchKind: 'description', matchKey: 'Transporte', bookAccountExternalId: 'BA-OWN' }]);
    await teach(1, [{ matchKind: 'description', matchKey: 'transporte', bookAccountExternalId: 'BA-5135' }]);
    await teach(2, [{ matchKind: 'description', matchKey: 'TRANSPORTE ', bookAccountExternalId: 'BA-5135' }]);
    await teach(3, [
      { matchKind: 'description', matchKey: 'transporte', bookAccountExternalId: 'BA-5140' },
      { matchKind: 'product', matchKey: 'P-1', bookAccountExternalId: 'BA-1435' },
    ]);
    await teach(4, [{ matchKind: 'description', matchKey: 'aseo', bookAccountExternalId: 'BA-5195' }]);
    const keys = [
      { matchKind: 'description' as const, matchKey: 'Transporte' },
      { matchKind: 'product' as const, matchKey: 'P-1' },
      { matchKind: 'product' as const, matchKey: 'P-404' },
    ];
    const found = await rulesOfOtherSuppliers(em(), {
      companyId: company.id,
      beneficiaryId: suppliers[0]!.id,
      keys,
      limit: 10,
    });
    expect(found).toEqual([
      { matchKind: 'description', matchKey: 'transporte', bookAccountExternalId: 'BA-5135', suppliers: 2 },
      // Ties go by kind, as the enum orders them (product first), then key and account.
      { matchKind: 'product', matchKey: 'P-1', bookAccountExternalId: 'BA-1435', suppliers: 1 },
      { matchKind: 'description', matchKey: 'transporte', bookAccountExternalId: 'BA-5140', suppliers: 1 },
    ]);
    expect(
      await rulesOfOtherSuppliers(em(), { companyId: company.id, beneficiaryId: suppliers[0]!.id, keys, limit: 1 }),
    ).toEqual([found[0]]);
    // Without a supplier, everyone's rules count, the asking one's too.
    expect(
      await rulesOfOtherSuppliers(em(), { companyId: company.id, beneficiaryId: null, keys, limit: 10 }),
    ).toContainEqual({
      matchKind: 'description',
      matchKey: 'transporte',
      bookAccountExternalId: 'BA-OWN',
      suppliers: 1,
    });
    expect(
      await rulesOfOtherSuppliers(em(), { companyId: company.id, beneficiaryId: suppliers[0]!.id, keys, limit: 0 }),
    ).toEqual([]);
  });

  it('reads through the indexes, never the whole table', async () => {
    const { company, suppliers } = await companyWithSuppliers(1);
    const keys = [
      { matchKind: 'product' as const, matchKey: 'P-1' },
      { matchKind: 'description' as const, matchKey: 'transporte' },
    ];
    const plan = (statement: RuleStatement | null) =>
      inTransaction(orm.em.fork(), async (tx) => {
        // The test's tables are small: with other plans ruled out, only an index that fits the statement can serve it.
        await tx.client.query('set local enable_seqscan = off');
        await tx.client.query('set local enable_bitmapscan = off');
        const { text, values } = positional(statement!.sql, statement!.params);
        const { rows } = await tx.client.query(`explain (format json) ${text}`, values);
        return JSON.stringify(rows[0]['QUERY PLAN']);
      });
    const own = await plan(rulesForStatement({ companyId: company.id, beneficiaryId: suppliers[0]!.id, keys }));
    expect(own).toContain('"Index Name":"book_account_rules_one_per_key"');
    expect(own).not.toContain('"Node Type":"Seq Scan"');
    const others = await plan(
      rulesOfOtherSuppliersStatement({ companyId: company.id, beneficiaryId: suppliers[0]!.id, keys, limit: 50 }),
    );
    expect(others).toContain('"Index Name":"book_account_rules_company_id_match_kind_match_key_index"');
    expect(others).not.toContain('"Node Type":"Seq Scan"');
  });
});
