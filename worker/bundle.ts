// The workflow code, bundled by webpack. Run as a script, it prints the bundle: the worker process bundles in a child
// process so that webpack's memory (over 100 MB of resident set) leaves with it instead of staying in the worker.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

/** The bundle, with these workflow interceptor modules, built by `node worker/bundle.ts [module...]` in a child process. */
export async function bundleInChildProcess(interceptorModules: readonly string[] = []): Promise<{ code: string }> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), ...interceptorModules], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  if (code !== 0) throw new Error(`bundling the workflow code failed (exit ${code})`);
  return { code: Buffer.concat(chunks).toString('utf8') };
}

if (import.meta.main) {
  const quiet = () => undefined;
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    workflowInterceptorModules: process.argv.slice(2),
    logger: { log: quiet, trace: quiet, debug: quiet, info: quiet, warn: quiet, error: quiet },
  });
  process.stdout.write(code);
}
