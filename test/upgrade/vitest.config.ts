import { defineConfig } from 'vitest/config';

// `npm run test:upgrade`: a rolling upgrade from the last release to this checkout, on the production shape started by
// the suite itself (no global setup).
export default defineConfig({
  ssr: { resolve: { conditions: ['@accounts-payable/source'] } },
  test: {
    include: ['test/upgrade/**/*.test.ts'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 900_000,
    hookTimeout: 400_000,
    expect: { poll: { timeout: 120_000, interval: 500 } },
  },
});
