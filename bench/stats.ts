/** The value below which `fraction` of the samples fall (nearest rank). */
export function percentile(samples: readonly number[], fraction: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export const median = (samples: readonly number[]) => percentile(samples, 0.5);

/** Latency figures of a set of timings, in milliseconds. */
export interface Latency {
  p50: number;
  p99: number;
}

export const latencyOf = (timings: readonly number[]): Latency => ({
  p50: percentile(timings, 0.5),
  p99: percentile(timings, 0.99),
});

/** Milliseconds that `work` took. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}

/** Runs `work` over every item with at most `limit` in flight. */
export async function eachWithConcurrency<T>(
  items: readonly T[],
  limit: number,
  work: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      await work(items[index]!, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
}

/**
 * Milliseconds to start `count` workflows (`concurrency` starts in flight) and see every one end: `start` starts the
 * n-th and hands back its handle, whose result is awaited once every start is made.
 */
export async function startAndAwaitAll(
  count: number,
  concurrency: number,
  start: (n: number) => Promise<{ result(): Promise<unknown> }>,
): Promise<number> {
  return timed(async () => {
    const results: Promise<unknown>[] = [];
    await eachWithConcurrency(
      Array.from({ length: count }, (_, n) => n),
      concurrency,
      async (n) => void results.push((await start(n)).result()),
    );
    await Promise.all(results);
  });
}

/** Polls `check` until it answers true; throws after `timeoutMs`. */
export async function until(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
  intervalMs = 50,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not done within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * A pause between measured phases, so that one does not pay for the Temporal server's housekeeping (visibility
 * updates, history cleanup) after the one before.
 */
export const settle = (milliseconds = 3_000) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Runs the two sides of a run back to back, the first one alternating from run to run. */
export async function backToBack(
  run: number,
  baseline: () => Promise<void>,
  product: () => Promise<void>,
): Promise<void> {
  for (const side of run % 2 ? [product, baseline] : [baseline, product]) {
    await settle();
    await side();
  }
}
