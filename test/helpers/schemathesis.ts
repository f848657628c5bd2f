import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
export const SCHEMATHESIS_VERSION = '4.32.5';

/**
 * The API fuzzer: `SCHEMATHESIS_PATH`, else `schemathesis` installed from PyPI into a virtual environment in the
 * project's cache (once per machine), the way the Temporal CLI is cached.
 */
export async function locateSchemathesis(): Promise<string> {
  if (process.env.SCHEMATHESIS_PATH) return process.env.SCHEMATHESIS_PATH;
  const venv = join(
    process.env.AP_CACHE_DIR ?? join(homedir(), '.cache', 'accounts-payable'),
    `schemathesis-${SCHEMATHESIS_VERSION}`,
  );
  const binary = join(venv, 'bin', 'schemathesis');
  if (!existsSync(binary)) {
    await exec('python3', ['-m', 'venv', venv]);
    await exec(
      join(venv, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', `schemathesis==${SCHEMATHESIS_VERSION}`],
      { maxBuffer: 16 * 1024 * 1024 },
    );
  }
  return binary;
}
