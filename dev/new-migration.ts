// `npm run migration:new -- <name>`: diffs the entities against a throwaway database migrated to the last migration,
// writes the next migration into db/migrations/, and lists every migration in its index.
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { initORM } from '../db/orm.ts';
import { tempDir } from '../platform/temp-dir.ts';
import { startEmbeddedPostgres } from './postgres.ts';

const MIGRATIONS_DIR = new URL('../db/migrations/', import.meta.url).pathname;
const [name = 'change'] = process.argv.slice(2);

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
