import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import { locatePythonTool, SCHEMATHESIS } from '../helpers/python-tools.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const exec = promisify(execFile);

let api: TestApi;
let schemathesis: string;
beforeAll(async () => {
  [api, schemathesis] = await Promise.all([
    startTestApi(),
    locatePythonTool(SCHEMATHESIS).then((tool) => tool.command),
  ]);
}, 300_000);
afterAll(() => api.close());

describe('API fuzzing', () => {
  it('generates requests for every operation from the OpenAPI document: no server error, every answer as documented, authentication never ignored', async () => {
    const { apiKey } = await makeCompany(api.orm, { features: ['workflow_api'] });
    const reports = tempDir('ap-fuzz-');
    const args = [
      '--config-file',
      'test/fuzz/schemathesis.toml',
      'run',
      `${api.url}/public/api/v1/openapi.json`,
      '--max-examples',
      process.env.FUZZ_MAX_EXAMPLES ?? '8',
      '--seed',
      process.env.FUZZ_SEED ?? '20261121',
      '--phases',
      'examples,coverage,fuzzing',
      '--workers',
      '1',
      '--no-shrink',
      '--continue-on-failure',
      '--report',
      'json',
      '--report-json-path',
      join(reports, 'run.json'),
    ];
    const run = await exec(schemathesis, args, {
      maxBuffer: 64 * 1024 * 1024,
      env: { ...process.env, NO_COLOR: '1', FUZZ_API_KEY: apiKey },
    }).then(
      (result) => ({ code: 0, ...result }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    writeFileSync(join(reports, 'output.txt'), run.stdout);
    // Its closing rule (`=== N warnings in 79s ===`) reads to a CI log parser like a test runner that ran nothing.
    console.log(
      run.stdout
        .split('\n')
        .slice(-25)
        .filter((line) => !/^=+ .* =+$/.test(line))
        .join('\n'),
    );
    expect(run.code, `schemathesis found failures; its full output: ${join(reports, 'output.txt')}`).toBe(0);
  }, 600_000);
});
