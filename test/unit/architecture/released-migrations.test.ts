// A migration a release has run is history: databases out there ran it as it was then. A change to the schema is a
// new migration (docs/reliability.md, "Migrations: expand, then contract"), never an edit of one released.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { RELEASED_MIGRATIONS } from '../../harness/release.ts';

const digest = (name: string) =>
  createHash('sha256')
    .update(readFileSync(new URL(`../../../db/migrations/${name}`, import.meta.url)))
    .digest('hex');

describe('the migrations releases have run', () => {
  it('are here as they ran them', () => {
    const edited = Object.entries(RELEASED_MIGRATIONS)
      .filter(([name, released]) => digest(name) !== released)
      .map(([name]) => name);
    expect(edited).toEqual([]);
  });
});
