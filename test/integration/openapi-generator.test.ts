// The served OpenAPI document through openapi-generator, with the options the README gives: its TypeScript client
// (typescript-fetch) compiles under strict settings with a model for each webhook body, and its Python client imports
// and reads a real answer of the app with its Document model. Neither run warns beyond the generator's own notices.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { GENERATOR_GLOBAL_PROPERTIES, locateOpenApiGenerator } from '../helpers/openapi-generator.ts';
import { GENERATED_CLIENT_RUNTIME, locatePythonTool } from '../helpers/python-tools.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const run = promisify(execFile);
const TSC = new URL('../../node_modules/.bin/tsc', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'ap-openapi-generator-'));
const spec = join(dir, 'openapi.json');
const WEBHOOK_BODIES = ['DocumentCreatedEvent', 'DocumentAccountedEvent', 'PaymentRescheduledEvent'];

// What the generator prints of itself whatever the document: its 3.1 support is in beta, and it logs a missing schema
// name even for a document of one object schema and no paths.
const GENERATOR_NOTICES = [/OpenAPI 3\.1 support is still in beta/, /Failed to get the schema name: null/];

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
  writeFileSync(spec, await (await fetch(`${api.url}/public/api/v1/openapi.json`)).text());
});
afterAll(() => api.close());

/** Generates a client; answers the warnings and errors it printed beyond its own notices. */
async function generate(generator: string, output: string, ...options: string[]): Promise<string[]> {
  const jar = await locateOpenApiGenerator();
  const printed = await run(
    'java',
    [
      '-jar',
      jar,
      'generate',
      '-g',
      generator,
      '-i',
      spec,
      '-o',
      output,
      '--global-property',
      GENERATOR_GLOBAL_PROPERTIES,
    ].concat(options),
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return `${printed.stdout}\n${printed.stderr}`
    .split('\n')
    .filter((line) => /\b(WARN|ERROR)\b/.test(line) && !GENERATOR_NOTICES.some((notice) => notice.test(line)));
}

describe('openapi-generator on the served document', () => {
  it('makes a typescript-fetch client that compiles strictly, with a model for each webhook body', async () => {
    const output = join(dir, 'typescript');
    expect(await generate('typescript-fetch', output)).toEqual([]);
    expect(WEBHOOK_BODIES.filter((model) => !existsSync(join(output, 'models', `${model}.ts`)))).toEqual([]);

    writeFileSync(
      join(output, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          strict: true,
          noEmit: true,
          types: [],
        },
        include: ['**/*.ts'],
      }),
    );
    const compiled = await run(TSC, ['-p', output]).catch((failed: { stdout: string }) => failed);
    expect(compiled.stdout).toBe('');
  }, 300_000);

  it('makes a Python client that imports, whose Document reads a real answer', async () => {
    const output = join(dir, 'python');
    expect(await generate('python', output, '--additional-properties', 'packageName=ap_client')).toEqual([]);

    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const document = await seedDocument(api.orm, company, { documentNumber: 'FE-OAG-1' });
    const answer = await fetch(`${api.url}/public/api/v1/documents/${document.id}`, { headers: { 'api-key': apiKey } });
    const answerFile = join(dir, 'answer.json');
    writeFileSync(answerFile, await answer.text());

    const runtime = await locatePythonTool(GENERATED_CLIENT_RUNTIME);
    const read = await run(runtime.python, [
      '-c',
      [
        'import json, sys',
        `sys.path.insert(0, ${JSON.stringify(output)})`,
        'import ap_client.api',
        `from ap_client.models import Document, ${WEBHOOK_BODIES.join(', ')}`,
        'document = Document.from_dict(json.load(open(sys.argv[1])))',
        'print(json.dumps([str(document.reference), document.document_number, document.payment_status.value, len(document.line_items)]))',
      ].join('\n'),
      answerFile,
    ]);
    expect(JSON.parse(read.stdout)).toEqual([document.id, 'FE-OAG-1', 'pending', 1]);
  }, 300_000);
});
