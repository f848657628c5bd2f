// Python tools the suite runs, from PyPI: each installed once per machine into a virtual environment in the
// project's cache, the way the Temporal CLI is cached; a variable may point at one installed elsewhere.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

interface PythonTool {
  /** The PyPI package, pinned. */
  name: string;
  version: string;
  /** The command it installs. */
  command: string;
  /** A variable naming an installed one instead. */
  override: string;
  /** Other packages installed beside it, pinned. */
  with?: string[];
}

export const SCHEMATHESIS: PythonTool = {
  name: 'schemathesis',
  version: '4.32.5',
  command: 'schemathesis',
  override: 'SCHEMATHESIS_PATH',
};
export const OPENAPI_PYTHON_CLIENT: PythonTool = {
  name: 'openapi-python-client',
  version: '0.29.1',
  command: 'openapi-python-client',
  override: 'OPENAPI_PYTHON_CLIENT_PATH',
};
/** What the Python client made by openapi-generator imports (its requirements.txt), for the suite to import it. */
export const GENERATED_CLIENT_RUNTIME: PythonTool = {
  name: 'pydantic',
  version: '2.14.4',
  command: 'python',
  override: 'GENERATED_CLIENT_PYTHON_PATH',
  with: ['python-dateutil==4.0.0', 'urllib3==2.8.0', 'typing-extensions==4.16.0'],
};

/** The tool's command, installing it into `<cache>/<name>-<version>` the first time; its venv's `python` beside it. */
export async function locatePythonTool(tool: PythonTool): Promise<{ command: string; python: string }> {
  const overridden = process.env[tool.override];
  if (overridden) return { command: overridden, python: join(overridden, '..', 'python') };
  const venv = join(
    process.env.AP_CACHE_DIR ?? join(homedir(), '.cache', 'accounts-payable'),
    [`${tool.name}-${tool.version}`, ...(tool.with ?? [])].join('+').replaceAll('==', '-'),
  );
  const installed = join(venv, '.installed');
  if (!existsSync(installed)) {
    await exec('python3', ['-m', 'venv', '--clear', venv]);
    await exec(
      join(venv, 'bin', 'pip'),
      ['install', '--quiet', '--disable-pip-version-check', `${tool.name}==${tool.version}`, ...(tool.with ?? [])],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    await writeFile(installed, '');
  }
  return { command: join(venv, 'bin', tool.command), python: join(venv, 'bin', 'python') };
}
