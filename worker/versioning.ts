import type { WorkerDeploymentVersion } from '@temporalio/common';

/** The Worker Deployment every worker of the product belongs to, unless configured otherwise. */
export const DEFAULT_DEPLOYMENT_NAME = 'accounts-payable';

/**
 * Which build of the deployment this worker runs (`WORKER_BUILD_ID`, e.g. the release and its commit, `1.4.0-3f2a9c1`),
 * or null to run unversioned, as development does. Production requires one (platform/required-settings.ts): an
 * unversioned worker would take over every running history the moment it starts (docs/reliability.md, "Versioning").
 */
export function workerVersionFromEnv(env: NodeJS.ProcessEnv = process.env): WorkerDeploymentVersion | null {
  const buildId = env.WORKER_BUILD_ID?.trim();
  if (!buildId) return null;
  if (!/^[\w.+-]{1,128}$/.test(buildId))
    throw new Error(`WORKER_BUILD_ID "${buildId}" must be 1-128 letters, digits, ".", "_", "+" or "-"`);
  return { deploymentName: env.WORKER_DEPLOYMENT_NAME?.trim() || DEFAULT_DEPLOYMENT_NAME, buildId };
}
