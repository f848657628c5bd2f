// A migration a release has run is history: databases out there ran it as it was then. A change to the schema is a
// new migration (docs/reliability.md, "Migrations: expand, then contract"), never an edit of one released.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LAST_RELEASE } from '../../harness/release.ts';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 });

describe('the migrations of the last release', () => {
  it('are here as that release ran them', () => {
    const released = git('ls-tree', '--name-only', LAST_RELEASE.commit, 'db/migrations/')
      .split('\n')
      .filter((path) => /\/Migration\w+\.ts$/.test(path));
    expect(released.length).toBeGreaterThan(0);
    const edited = released.filter(
      (path) => git('show', `${LAST_RELEASE.commit}:${path}`) !== readFileSync(join(REPO, path), 'utf8'),
    );
    expect(edited).toEqual([]);
  });
});
