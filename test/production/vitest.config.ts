import { defineConfig } from 'vitest/config';

// `npm run test:production`: the product in the shape docker-compose.yml deploys, started by the suite itself (no
// global setup). One file at a time: each runs the whole product.
export default defineConfig({
  ssr: { resolve: { conditions: ['@accounts-payable/source'] } },
  test: {
    include: ['test/production/**/*.test.ts'],
    reporters: ['default', './test/helpers/closing-line-reporter.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 600_000,
    hookTimeout: 300_000,
    expect: { poll: { timeout: 60_000, interval: 250 } },
  },
});
