import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import * as workflows from '../../workflows/index.ts';
import { WORKFLOWS_PATH } from '../../worker/worker.ts';
import { recordedHistories } from '../helpers/recorded-histories.ts';

const histories = recordedHistories();

describe('recorded workflow histories', () => {
  it('hold at least one history of every workflow the worker runs', () => {
    const recorded = new Set(histories.map((history) => history.workflowType));
    expect(Object.keys(workflows).filter((type) => !recorded.has(type))).toEqual([]);
  });

  it("replay with today's workflow code", async () => {
    const failures: string[] = [];
    const replayed = Worker.runReplayHistories(
      { workflowsPath: WORKFLOWS_PATH, replayName: 'recorded-histories' },
      histories.map(({ workflowId, history }) => ({ workflowId, history })),
    );
    let count = 0;
    for await (const result of replayed) {
      // Results come in the order the histories were given.
      const { file } = histories[count++]!;
      if (result.error) failures.push(`${file}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
    expect(count).toBe(histories.length);
  });
});
