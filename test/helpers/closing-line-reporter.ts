import type { Reporter, TestModule } from 'vitest/node';
import { suiteHealthSummary } from './suite-health.ts';

/**
 * Ends the run with one plain line, `tests: N passed, N failed, N skipped`: the form that programs reading a CI log
 * understand whatever the runner, so a log whose other lines resemble another runner's summary cannot be misread.
 * Before it, what the machine and the shared services went through (suite-health.ts).
 */
export default class ClosingLineReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0, pending: 0 };
    for (const module of testModules) {
      for (const test of module.children.allTests()) counts[test.result().state] += 1;
    }
    const health = suiteHealthSummary();
    if (health) process.stdout.write(`\n${health}\n`);
    process.stdout.write(
      `\ntests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped + counts.pending} skipped\n`,
    );
  }
}
