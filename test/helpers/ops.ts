import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { outsideSystemsEnv } from '../../platform/outside-systems.ts';
import { TEST_WEBHOOK_SECRET_KEY } from './activity-deps.ts';
import { TEST_DIAN_SOFTWARE } from '../harness/signing-certificates.ts';

const exec = promisify(execFile);
const COMMAND_TIMEOUT_MS = 60_000;

export interface OpsResult {
  code: number;
  stdout: any;
  stderr: any;
}

/** Runs the operator CLI as operators do, against the suite's PostgreSQL, Temporal and file storage. */
export async function ops(...args: string[]): Promise<OpsResult> {
  return opsWith({}, ...args);
}

/** The operator CLI with some environment of its own (another task queue, say). */
/** Subscribes a company's receiver to an event (`ops webhooks add`); answers the subscription's reference. */
export async function subscribeWebhook(companyId: string, event: string, url: string, secret: string): Promise<string> {
  const added = await ops(
    'webhooks',
    'add',
    '--company',
    companyId,
    '--event',
    event,
    '--url',
    url,
    '--secret',
    secret,
  );
  if (added.code !== 0) throw new Error(`ops webhooks add failed: ${JSON.stringify(added.stderr)}`);
  return added.stdout.reference as string;
}

export async function opsWith(overrides: Record<string, string>, ...args: string[]): Promise<OpsResult> {
  const env = {
    ...suiteEnv(),
    ...overrides,
  };
  try {
    // A command that never ends is killed, and fails its test, rather than holding the suite.
    const { stdout, stderr } = await exec(process.execPath, ['cli/main.ts', ...args], {
      env,
      timeout: COMMAND_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    });
    return { code: 0, stdout: JSON.parse(stdout), stderr };
  } catch (error) {
    return failed(error);
  }
}

/** The environment that points a process of the product at the suite's services. */
export function suiteEnv(): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: inject('databaseUrl'),
    TEMPORAL_ADDRESS: inject('temporalAddress'),
    TEMPORAL_TASK_QUEUE: inject('taskQueue'),
    STORAGE_DIR: inject('storageDir'),
    WEBHOOK_SECRET_KEY: TEST_WEBHOOK_SECRET_KEY,
    // Events recorded by the CLI carry its retry schedule: short waits in the suite.
    WEBHOOK_RETRY_INITIAL_MS: '200',
    WEBHOOK_RETRY_MAX_MS: '1000',
    PUBLIC_URL: inject('publicUrl'),
    ...outsideSystemsEnv(inject('outside')),
    DIAN_SOFTWARE_ID: TEST_DIAN_SOFTWARE.id,
    DIAN_SOFTWARE_PIN: TEST_DIAN_SOFTWARE.pin,
  };
}

function failed(error: unknown): OpsResult {
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
