import { defineConfig } from 'vitest/config';

// `npm run test:faults`: the long crash-and-restart run. Its harness starts every part of the product itself, so
// there is no global setup; one file at a time, since the run is the load.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.faults.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 3_600_000,
    hookTimeout: 300_000,
  },
});
