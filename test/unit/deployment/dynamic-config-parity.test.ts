// The Temporal server runs with one dynamic configuration wherever it runs: the dev server (tests, the bench, `npm
// start`) takes it as flags, docker compose and the production-shape suite read it from deploy/.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DYNAMIC_CONFIG } from '../../../dev/temporal.ts';

describe('the Temporal dynamic configuration', () => {
  it('is the same for the dev server as in deploy/temporal-dynamic-config.yaml', () => {
    const file = parse(
      readFileSync(new URL('../../../deploy/temporal-dynamic-config.yaml', import.meta.url), 'utf8'),
    ) as Record<string, { value: unknown }[]>;
    const values = Object.fromEntries(Object.entries(file).map(([key, entries]) => [key, entries[0]?.value]));
    expect(values).toEqual(DYNAMIC_CONFIG);
  });
});
