// Database schema commands: `up` applies pending migrations and seeds reference data;
// `create <name>` diffs the entities against a throwaway database and writes the next migration.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { startEmbeddedPostgres } from '../dev/postgres.ts';
import { tempDir } from '../dev/temp-dir.ts';
import { databaseConfigFromEnv } from './config.ts';
import { initORM } from './orm.ts';
import { migrateAndSeed } from './schema.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url).pathname;
const [command = 'up', name = 'change'] = process.argv.slice(2);

if (command === 'up') {
  const orm = await initORM(databaseConfigFromEnv());
  const result = await migrateAndSeed(orm);
  console.log(JSON.stringify(result));
  await orm.close();
} else if (command === 'create') {
  const dataDir = tempDir('ap-migration-');
  const db = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres') });
  try {
    const orm = await initORM({ url: db.url, poolMax: 2, statementTimeoutMs: 60_000, debug: false });
    await orm.migrator.up();
    const result = await orm.migrator.create(MIGRATIONS_DIR, false, false, name);
    await orm.close();
    if (!result.fileName) console.log('No schema changes: no migration written');
    else {
      writeIndex();
      console.log(`Wrote ${join('db/migrations', basename(result.fileName))}`);
    }
  } finally {
    await db.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
} else {
  console.error('usage: node db/migrate.ts up | create <name>');
  process.exit(2);
}

function writeIndex(): void {
  const files = readdirSync(MIGRATIONS_DIR)
    .filter((file) => /^Migration\d+.*\.ts$/.test(file))
    .sort();
  const names = files.map((file) => file.replace(/\.ts$/, ''));
  const source = [
    ...names.map((migration) => `import { ${migration} } from './${migration}.ts';`),
    '',
    '/** Every migration, in order. Listed explicitly so that no file discovery happens at run time. */',
    `export const MIGRATIONS = [${names.map((migration) => `\n  { name: '${migration}', class: ${migration} },`).join('')}\n];`,
    '',
  ].join('\n');
  writeFileSync(join(MIGRATIONS_DIR, 'index.ts'), source);
}
