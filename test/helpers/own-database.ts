import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../dev/postgres.ts';
import { tempDir } from '../../platform/temp-dir.ts';

/** A PostgreSQL of a test file's own, to stop or kill without touching the rest of the suite; `remove` deletes it. */
export async function startOwnDatabase(prefix: string): Promise<EmbeddedDatabase & { remove(): Promise<void> }> {
  const dir = tempDir(prefix);
  const db = await startEmbeddedPostgres({ dataDir: join(dir, 'postgres') });
  return {
    ...db,
    async remove() {
      await db.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
