// A worker reads all its settings before it connects to anything: one it cannot use stops it there, named, rather than
// failing later inside an activity.
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { spawnWorker } from '../helpers/processes.ts';

describe('the worker at startup', () => {
  it('stops on an intake cap that is not a positive whole number, saying which one', async () => {
    const worker = spawnWorker('worker-settings', { INTAKE_MAX_ENTRY_BYTES: '10mb' });
    // Its whole output, once its pipes are closed.
    const closed = once(worker.process, 'close');
    try {
      await expect(worker.ready).rejects.toThrow(/exited \(1\) before running/);
      await closed;
    } finally {
      await worker.kill();
    }
    const messages = worker
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(messages.filter((line) => line.level === 60).map((line) => line.msg)).toEqual([
      'INTAKE_MAX_ENTRY_BYTES must be a positive whole number',
    ]);
  });
});
