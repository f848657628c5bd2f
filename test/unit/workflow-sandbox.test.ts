import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const WORKFLOWS = new URL('../../workflows/', import.meta.url).pathname;
// Workflows must be deterministic: no I/O, database, HTTP server or clock of their own.
const FORBIDDEN = [/^node:/, /^(fs|path|http|https|net|crypto|child_process|os)$/, /^@mikro-orm\//, /^koa$/, /^@koa\//, /^pg$/, /\/db\//, /\/api\//, /\/activities\/(?!.*types)/, /^@temporalio\/(client|worker|activity)$/];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('workflow sandbox', () => {
  it('keeps Node built-ins, the ORM, Koa and activity implementations out of workflows/', () => {
    const offences: string[] = [];
    for (const file of sources(WORKFLOWS)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/^\s*import\s+(type\s+)?[^'"]*from\s+'([^']+)'/gm)) {
        const [, typeOnly, specifier] = match;
        if (!typeOnly && FORBIDDEN.some((pattern) => pattern.test(specifier!))) offences.push(`${file}: ${specifier}`);
      }
    }
    expect(offences).toEqual([]);
  });
});
