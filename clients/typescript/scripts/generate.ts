/**
 * Writes the client's generated declarations from the route table (`npm run client:generate`);
 * `--check` only says whether the committed file is current.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { ROUTE_GROUPS } from '../../../api/routes/index.ts';
import { buildOpenApiDocument } from '../../../api/schemas/openapi.ts';
import { renderClientTypes, type OpenApiDocument } from './render.ts';

export const GENERATED_FILE = new URL('../src/operations.generated.ts', import.meta.url);

/** The declarations the route table describes today. */
export function generatedSource(): string {
  const document = buildOpenApiDocument(ROUTE_GROUPS, { serverUrl: 'http://localhost' });
  return renderClientTypes(document as unknown as OpenApiDocument);
}

if (import.meta.main) {
  const source = generatedSource();
  const committed = await readFile(GENERATED_FILE, 'utf8').catch(() => '');
  if (process.argv.includes('--check')) {
    if (committed !== source) {
      console.error('clients/typescript/src/operations.generated.ts is stale: run `npm run client:generate`');
      process.exitCode = 1;
    }
  } else if (committed !== source) {
    await writeFile(GENERATED_FILE, source);
    console.log('clients/typescript/src/operations.generated.ts written');
  } else {
    console.log('clients/typescript/src/operations.generated.ts is current');
  }
}
