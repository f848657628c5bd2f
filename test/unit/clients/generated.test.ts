import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generatedSource } from '../../../clients/typescript/scripts/generate.ts';
import { ROUTE_GROUPS } from '../../../api/routes/index.ts';
import { operations } from '@accounts-payable/client';

describe('the typed client', () => {
  it('is generated from the current route table (run `npm run client:generate` when this fails)', async () => {
    expect(await readFile(GENERATED_FILE, 'utf8')).toBe(generatedSource());
  });

  it('has one operation per declared route, and the stored files’ download', () => {
    const declared = ROUTE_GROUPS.flatMap((group) => group.routes.map((route) => route.operationId));
    expect(Object.keys(operations).sort()).toEqual([...declared, 'getFile'].sort());
  });
});
