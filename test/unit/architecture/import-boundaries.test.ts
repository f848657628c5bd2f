// The folders' dependency direction is a lint rule (.oxlintrc.json): these probes show it refuses what it must, and
// lets through what the layout allows, by linting a scratch tree laid out like the repository.
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../platform/temp-dir.ts';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const dir = tempDir('ap-lint-probe-');
// The rule's file globs are relative to its config: a copy beside the scratch tree applies it there.
copyFileSync(join(REPO, '.oxlintrc.json'), join(dir, '.oxlintrc.json'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lints one probe file at `path` (as if in the repository) and answers the imports the rule refused. */
async function refused(path: string, source: string): Promise<string[]> {
  const file = join(dir, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, source);
  const oxlint = join(REPO, 'node_modules/.bin/oxlint');
  const { stdout } = await run(oxlint, ['-c', '.oxlintrc.json', '--format', 'unix', path], {
    cwd: dir,
  }).catch((failure: { stdout: string }) => ({ stdout: failure.stdout }));
  rmSync(file);
  return [...stdout.matchAll(/'([^']+)' import is restricted/g)].map((match) => match[1]!);
}

describe('the import boundaries', () => {
  it('keep db and services away from api and Temporal, and the product away from dev and bench', async () => {
    expect(
      await refused('db/probe.ts', "import { ApiError } from '../api/errors.ts';\nexport const a = ApiError;\n"),
    ).toEqual(['../api/errors.ts']);
    expect(
      await refused(
        'services/payments/probe.ts',
        "import { beforeDeadline } from '../../temporal/handle.ts';\nexport const a = beforeDeadline;\n",
      ),
    ).toEqual(['../../temporal/handle.ts']);
    expect(
      await refused(
        'services/payments/probe.ts',
        "import { ApplicationFailure } from '@temporalio/common';\nexport const a = ApplicationFailure;\n",
      ),
    ).toEqual(['@temporalio/common']);
    expect(
      await refused(
        'api/routes/probe.ts',
        "import { freePort } from '../../bench/stats.ts';\nexport const a = freePort;\n",
      ),
    ).toEqual(['../../bench/stats.ts']);
    expect(
      await refused('worker/probe.ts', "import { start } from '../dev/postgres.ts';\nexport const a = start;\n"),
    ).toEqual(['../dev/postgres.ts']);
  });

  it('let workflows import only types, and the pure rules of domain/', async () => {
    const source = [
      "import { stepRecord } from '../db/workflow-steps/step-record.ts';",
      "import type { StepRecord } from '../db/workflow-steps/step-record.ts';",
      "import { refuseDecision } from '../domain/step-rules.ts';",
      "import { readFileSync } from 'node:fs';",
      'export const a: [unknown, StepRecord?] = [stepRecord, refuseDecision, readFileSync];',
    ].join('\n');
    expect(await refused('workflows/probe.ts', source)).toEqual(['../db/workflow-steps/step-record.ts', 'node:fs']);
  });

  it('let each folder import the folders below it', async () => {
    expect(
      await refused(
        'api/routes/probe.ts',
        "import { beforeDeadline } from '../../temporal/handle.ts';\nexport const a = beforeDeadline;\n",
      ),
    ).toEqual([]);
    expect(
      await refused(
        'temporal/probe.ts',
        "import { documentLifecycle } from '../workflows/document.ts';\nexport const a = documentLifecycle;\n",
      ),
    ).toEqual([]);
  });
});
