import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The workspace client is imported from its TypeScript source (the `@accounts-payable/source` export), never from a build.
  ssr: { resolve: { conditions: ['@accounts-payable/source'] } },
  test: {
    include: ['test/**/*.test.ts'],
    // The production shape and the upgrade run on their own (`npm run test:production`, `npm run test:upgrade`): each
    // starts the whole product itself.
    exclude: ['test/production/**', 'test/upgrade/**', '**/node_modules/**'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Forks, not threads: Temporal's native runtime does not survive worker threads.
    pool: 'forks',
    // Integration files mostly wait (on timers, workflows, child processes): run more of them than there are cores.
    maxWorkers: 4,
    testTimeout: 90_000,
    expect: { poll: { timeout: 30_000, interval: 100 } },
    hookTimeout: 120_000,
    teardownTimeout: 60_000,
  },
});
