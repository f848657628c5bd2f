// No source line is longer than MAX_LINE characters: long strings are split into concatenations or
// `[...].join(' ')` arrays, long SQL at natural points, long expressions into named parts. The files written by their
// generators keep to it too (the client's doc comments are wrapped); fixtures, benchmark results and the migrations
// of past releases are left as they are.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const MAX_LINE = 200;
const SOURCE = /\.(ts|sh|mjs|js)$/;
const EXCLUDED = ['test/fixtures/', 'bench/results/', 'db/migrations/'];

/** The tracked source files (a file deleted in the working tree but still tracked is skipped). */
function sourceFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: REPO, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((path) => SOURCE.test(path) && !EXCLUDED.some((prefix) => path.startsWith(prefix)))
    .filter((path) => existsSync(join(REPO, path)));
}

describe('the source lines', () => {
  it(`are at most ${MAX_LINE} characters long`, () => {
    const files = sourceFiles();
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((path) =>
      readFileSync(join(REPO, path), 'utf8')
        .split('\n')
        .flatMap((line, index) => (line.length > MAX_LINE ? [`${path}:${index + 1} (${line.length} characters)`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
