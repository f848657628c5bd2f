import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { TEST_WEBHOOK_SECRET_KEY } from './activity-deps.ts';

const exec = promisify(execFile);

export interface OpsResult {
  code: number;
  stdout: any;
  stderr: any;
}

/** Runs the operator CLI as operators do, against the suite's PostgreSQL, Temporal and file storage. */
export async function ops(...args: string[]): Promise<OpsResult> {
  const env = {
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: inject('taskQueue'),
    STORAGE_DIR: inject('storageDir'),
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
  };
  try {
    const { stdout, stderr } = await exec(process.execPath, ['cli/main.ts', ...args], { env });
    return { code: 0, stdout: JSON.parse(stdout), stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    const lastLine = failure.stderr.trim().split('\n').pop() ?? '';
    let stderr: unknown = failure.stderr;
    try {
      stderr = JSON.parse(lastLine);
    } catch {
      // not JSON: keep the text
    }
    return { code: failure.code, stdout: failure.stdout, stderr };
  }
}
