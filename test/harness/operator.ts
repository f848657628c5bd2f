import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { backoff, type RetryStats } from './retry-stats.ts';

const CLI = fileURLToPath(new URL('../../cli/main.ts', import.meta.url));

export interface CliAnswer {
  code: number;
  stdout: any;
  /** The CLI's `{ error: { code, message } }`, when it printed one. */
  error: { code: string; message: string } | null;
}

/** Runs the operator CLI once (`node cli/main.ts ...`), against the harness's services. */
export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliAnswer> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env, timeout: 120_000 }, (failure, stdout, stderr) => {
      if (!failure) return resolve({ code: 0, stdout: JSON.parse(stdout), error: null });
      const last = stderr.trim().split('\n').pop() ?? '';
      let error: CliAnswer['error'] = { code: 'no_answer', message: stderr.slice(-2000) || failure.message };
      try {
        error = (JSON.parse(last) as { error: CliAnswer['error'] }).error;
      } catch {
        // not the CLI's JSON error: a crash, or killed by the timeout
      }
      resolve({ code: typeof failure.code === 'number' ? failure.code : 1, stdout: null, error });
    });
  });
}

/**
 * The operator CLI as an operator uses it during an incident: a command that failed for want of a dependency
 * (`internal_error`: PostgreSQL or Temporal not answering) is run again, as is; any other answer is final.
 */
export function operatorClient(env: NodeJS.ProcessEnv, stats: RetryStats, giveUpAfterMs: number) {
  return async function ops(...args: string[]): Promise<CliAnswer> {
    const deadline = Date.now() + giveUpAfterMs;
    for (let attempt = 0; ; attempt++) {
      stats.requests.cli += 1;
      const answer = await runCli(env, args);
      if (answer.code === 0 || !['internal_error', 'no_answer'].includes(answer.error?.code ?? '')) return answer;
      if (Date.now() > deadline)
        throw new Error(
          `ops ${args.slice(0, 2).join(' ')}: still failing after ${giveUpAfterMs / 1000} s: ${answer.error?.message}`,
        );
      stats.count('cli_failure');
      await backoff(attempt);
    }
  };
}

export type Operator = ReturnType<typeof operatorClient>;
