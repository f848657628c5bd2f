// The long crash-and-restart run (`npm run test:faults`): many faults of every kind, at seeded random moments, under
// a steady load of imports, step decisions, approvals, reception-event batches and webhooks. FAULT_SEED replays a run.
import { describe, expect, it } from 'vitest';
import { formatFigures } from '../harness/figures.ts';
import { seedFromEnv } from '../harness/random.ts';
import { runCrashRestart, type CrashProfile } from '../harness/scenario.ts';

const rounds = Number(process.env.FAULT_ROUNDS ?? 5);

const LONG: CrashProfile = {
  name: `long: ${rounds} faults of each kind`,
  load: {
    documents: 20 * rounds,
    lanes: 10,
    importBatch: 4,
    spreadMs: 45_000 * rounds,
    approveShare: 0.5,
    documentTimeoutMs: 600_000,
    pay: true,
  },
  faults: { rounds, gapMs: [4_000, 12_000], downMs: [500, 5_000] },
  settleTimeoutMs: 300_000,
};

describe('crash and restart (long)', () => {
  it('loses no accepted request, delivers every event and completes no step twice while every part is killed again and again', async () => {
    const { figures, held, logs } = await runCrashRestart(LONG, seedFromEnv(), (line) =>
      console.log(`[faults] ${line}`),
    );
    console.log(formatFigures(figures));
    if (logs) console.log(`[faults] logs kept in ${logs}`);
    expect(figures.faults).toHaveLength(4 * rounds);
    expect(figures.checked.findings).toEqual({ lost: [], stuck: [], doubled: [] });
    expect(figures.serverErrors).toEqual([]);
    expect(figures.failures).toEqual([]);
    expect(figures.checked.deliveries.created).toBe(LONG.load.documents);
    expect(figures.checked.deliveries.accounted).toBe(LONG.load.documents);
    expect(figures.accepted.pay).toBe(LONG.load.documents);
    expect(figures.waitedForAccount).toBe(1);
    expect(held).toBe(true);
  });
});
