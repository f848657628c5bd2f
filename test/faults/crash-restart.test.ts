// The short crash-and-restart run, part of `npm test`: one SIGKILL of each part under a small load.
// The long run is crash-restart.faults.ts (`npm run test:faults`).
import { describe, expect, it } from 'vitest';
import { formatFigures } from '../harness/figures.ts';
import { seedFromEnv } from '../harness/random.ts';
import { runCrashRestart, type CrashProfile } from '../harness/scenario.ts';

const SHORT: CrashProfile = {
  name: 'short: one fault of each kind',
  load: {
    documents: 8,
    lanes: 8,
    importBatch: 4,
    spreadMs: 8_000,
    approveShare: 0.5,
    documentTimeoutMs: 240_000,
    pay: true,
  },
  faults: { rounds: 1, gapMs: [2_000, 5_000], downMs: [500, 2_500] },
  settleTimeoutMs: 180_000,
};

describe('crash and restart (short)', () => {
  it('loses no accepted request, delivers every event and completes no step twice while each part is killed once', async () => {
    const { figures, held, logs } = await runCrashRestart(SHORT, seedFromEnv(), (line) =>
      console.log(`[faults] ${line}`),
    );
    console.log(formatFigures(figures));
    if (logs) console.log(`[faults] logs kept in ${logs}`);
    expect(figures.faults.map((fault) => fault.kind).sort()).toEqual(['api', 'postgres', 'temporal', 'worker']);
    expect(figures.checked.findings).toEqual({ lost: [], stuck: [], doubled: [] });
    expect(figures.serverErrors).toEqual([]);
    expect(figures.failures).toEqual([]);
    expect(figures.checked.deliveries.created).toBe(SHORT.load.documents);
    expect(figures.checked.deliveries.accounted).toBe(SHORT.load.documents);
    expect(figures.accepted.pay).toBe(SHORT.load.documents);
    expect(figures.waitedForAccount).toBe(1);
    expect(held).toBe(true);
  }, 600_000);
});
