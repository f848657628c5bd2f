// `node db/migrate.ts up`: applies pending migrations and seeds reference data (docker compose's `migrate` service,
// and the one-shot step before a new version's API and workers start). `npm run migration:new` writes the next one.
import { databaseConfigFromEnv } from './config.ts';
import { initORM } from './orm.ts';
import { migrateAndSeed } from './schema.ts';

const [command = 'up'] = process.argv.slice(2);
if (command !== 'up') {
  console.error('usage: node db/migrate.ts up (npm run migration:new -- <name> writes a migration)');
  process.exit(2);
}
const orm = await initORM(databaseConfigFromEnv());
const result = await migrateAndSeed(orm);
console.log(JSON.stringify(result));
await orm.close();
