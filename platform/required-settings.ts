/** The processes of the product that read settings from the environment. */
export type ProcessRole = 'api' | 'worker';

/** Settings a process cannot run without in production, with what each is and how an operator makes it. */
const REQUIRED: Record<string, { roles: readonly ProcessRole[]; how: string }> = {
  DATABASE_URL: {
    roles: ['api', 'worker'],
    how: 'the PostgreSQL of the read state, e.g. postgres://accounts_payable:PASSWORD@db.internal:5432/accounts_payable',
  },
  TEMPORAL_ADDRESS: { roles: ['api', 'worker'], how: 'the Temporal frontend, host:7233' },
  PUBLIC_URL: {
    roles: ['api', 'worker'],
    how: "the API's URL as integrators reach it (links in answers and webhooks), e.g. https://ap.example.com",
  },
  WEBHOOK_SECRET_KEY: {
    roles: ['worker'],
    how: [
      '64 hex characters sealing webhook secrets at rest:',
      'make one with `openssl rand -hex 32`, give the same to every worker and to the CLI, and keep it (what it sealed cannot be opened without it)',
    ].join(' '),
  },
  WORKER_BUILD_ID: {
    roles: ['worker'],
    how: [
      'the release this worker runs, e.g. its package version and commit (1.4.0-3f2a9c1):',
      'each release is a build of the Worker Deployment, ramped and made current as docs/operations.md says ("Deploying a release")',
    ].join(' '),
  },
};

/**
 * What is missing for a process to start in production: one line per setting, saying what it is and how to make it.
 * Outside production, `npm start` provides them all.
 */
export function missingProductionSettings(role: ProcessRole, env: NodeJS.ProcessEnv = process.env): string[] {
  if (env.NODE_ENV !== 'production') return [];
  return Object.entries(REQUIRED)
    .filter(([variable, { roles }]) => roles.includes(role) && !env[variable]?.trim())
    .map(([variable, { how }]) => `${variable} is required in production: ${how}`);
}

/**
 * Reads a process's settings, or stops it with messages an operator can act on: every missing production setting at
 * once, or the first setting that cannot be read. No stack trace: the message is the whole story.
 */
export function settingsOrExit<T>(role: ProcessRole, logger: { fatal(message: string): void }, read: () => T): T {
  const missing = missingProductionSettings(role);
  if (missing.length > 0) {
    for (const line of missing) logger.fatal(line);
    process.exit(1);
  }
  try {
    return read();
  } catch (error) {
    logger.fatal((error as Error).message);
    process.exit(1);
  }
}
