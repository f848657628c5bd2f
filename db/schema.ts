import { seedBanks } from './banks/bank-catalog.ts';
import { systemEm, type Orm } from './orm.ts';

/** Brings the database to the current schema and refreshes reference data; safe to run on every start. */
export async function migrateAndSeed(orm: Orm): Promise<{ migrations: string[]; banks: number }> {
  const applied = await orm.migrator.up();
  const banks = await seedBanks(systemEm(orm));
  return { migrations: applied.map((migration) => migration.name), banks };
}
