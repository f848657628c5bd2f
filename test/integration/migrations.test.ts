import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { Bank } from '../../db/banks/bank.entity.ts';
import { initORM, systemEm } from '../../db/orm.ts';
import { migrateAndSeed } from '../../db/schema.ts';

describe('migrations', () => {
  it('bring an empty database to exactly the schema the entities describe, and seed the banks', async () => {
    const name = `migrations_${process.pid}_${Date.now()}`;
    const admin = new pg.Client({ connectionString: inject('databaseUrl') });
    await admin.connect();
    await admin.query(`create database ${name}`);
    const url = new URL(inject('databaseUrl'));
    url.pathname = `/${name}`;
    const orm = await initORM({ url: url.toString(), poolMax: 2, statementTimeoutMs: 30_000, debug: false });
    try {
      const first = await migrateAndSeed(orm);
      expect(first.migrations.length).toBeGreaterThan(0);
      expect(await orm.schema.getUpdateSchemaSQL({ wrap: false })).toBe('');
      const again = await migrateAndSeed(orm);
      expect(again.migrations).toEqual([]);
      const em = systemEm(orm);
      expect(await em.count(Bank, { country: 'COL' })).toBeGreaterThanOrEqual(30);
      expect(await em.count(Bank, { country: 'MEX' })).toBeGreaterThanOrEqual(40);
    } finally {
      await orm.close();
      await admin.query(`drop database ${name}`);
      await admin.end();
    }
  });
});
