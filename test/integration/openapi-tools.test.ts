// The OpenAPI document the app serves, as integrators' tools take it: Redocly (recommended rules) and Spectral
// (spectral:oas) find nothing in it, and openapi-python-client makes a client of every schema whose Document model
// reads a real answer of the app.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { locatePythonTool, OPENAPI_PYTHON_CLIENT } from '../helpers/python-tools.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const run = promisify(execFile);
const REPO = new URL('../../', import.meta.url).pathname;
const bin = (name: string) => join(REPO, 'node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'ap-openapi-tools-'));

let api: TestApi;
let served: Record<string, any>;

beforeAll(async () => {
  api = await startTestApi();
  served = (await (await fetch(`${api.url}/public/api/v1/openapi.json`)).json()) as Record<string, any>;
});
afterAll(() => api.close());

function documentFile(name: string, document: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

/** What Redocly and Spectral find in a document, as rule ids. */
async function findings(file: string): Promise<{ redocly: string[]; spectral: string[] }> {
  const redocly = await run(
    bin('redocly'),
    ['lint', file, '--format', 'json', '--config', join(REPO, 'redocly.yaml')],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((failed: { stdout: string }) => failed);
  const report = join(dir, `${Math.random().toString(36).slice(2)}.json`);
  await run(bin('spectral'), [
    'lint',
    file,
    '--ruleset',
    join(REPO, '.spectral.yaml'),
    '--format',
    'json',
    '--output',
    report,
    '--fail-severity',
    'hint',
  ]).catch(() => undefined);
  return {
    redocly: (JSON.parse(redocly.stdout) as { problems: { ruleId: string }[] }).problems.map(
      (problem) => problem.ruleId,
    ),
    spectral: (JSON.parse(readFileSync(report, 'utf8')) as { code: string }[]).map((result) => result.code),
  };
}

describe('the served OpenAPI document', () => {
  it('has no finding of Redocly (recommended) or Spectral (spectral:oas)', async () => {
    expect(await findings(documentFile('served.json', served))).toEqual({ redocly: [], spectral: [] });
  }, 120_000);

  it('would fail the check above with a finding brought back', async () => {
    const broken = structuredClone(served);
    delete broken.info.license;
    delete broken.paths['/public/api/v1/banks'].get.description;
    expect(await findings(documentFile('broken.json', broken))).toEqual({
      redocly: ['info-license'],
      spectral: ['operation-description'],
    });
  }, 120_000);

  it('gives openapi-python-client every schema without a warning, and its Document reads a real answer', async () => {
    const generator = await locatePythonTool(OPENAPI_PYTHON_CLIENT);
    const output = join(dir, 'client');
    const config = documentFile('generator.yaml', { post_hooks: [] });
    const generated = await run(generator.command, [
      'generate',
      '--path',
      documentFile('for-python.json', served),
      '--output-path',
      output,
      '--meta',
      'none',
      '--config',
      config,
    ]);
    expect(`${generated.stdout}${generated.stderr}`.trim()).toBe(`Generating ${output}`);

    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const document = await seedDocument(api.orm, company, { documentNumber: 'FE-PY-1' });
    const answer = await fetch(`${api.url}/public/api/v1/documents/${document.id}`, { headers: { 'api-key': apiKey } });
    const read = await run(generator.python, [
      '-c',
      [
        'import json, sys',
        `sys.path.insert(0, ${JSON.stringify(dir)})`,
        'from client.models import Document',
        'document = Document.from_dict(json.load(open(sys.argv[1])))',
        'print(json.dumps([str(document.reference), document.document_number, document.payment_status.value, len(document.line_items)]))',
      ].join('\n'),
      documentFile('answer.json', await answer.json()),
    ]);
    expect(JSON.parse(read.stdout)).toEqual([document.id, 'FE-PY-1', 'pending', 1]);
  }, 600_000);
});
