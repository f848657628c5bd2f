import { Context } from '@temporalio/activity';
import type { Attempt } from '../services/attempt.ts';

const EVERY_MS = 2_000;

/**
 * Heartbeats `details()` every 2 s until stopped (and at once when `now`), so that a step without a natural beat (a
 * download, a slow receiver, a slow database) still says the worker is alive: if it dies, the attempt is retried
 * elsewhere within the heartbeat timeout instead of the whole start-to-close timeout. A local activity has no
 * heartbeat: the workflow task it runs in times out instead.
 */
function keepHeartbeating(details: () => unknown, now: boolean): () => void {
  const context = Context.current();
  if (context.info.isLocal) return () => {};
  if (now) context.heartbeat(details());
  const timer = setInterval(() => context.heartbeat(details()), EVERY_MS);
  return () => clearInterval(timer);
}

/** Runs work while heartbeating; most calls end before the first beat is due, and cost the server nothing. */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const stop = keepHeartbeating(() => undefined, false);
  try {
    return await work();
  } finally {
    stop();
  }
}

/** This activity's attempt, as the services that resume long work read it. */
export function currentAttempt(): Attempt {
  const { info } = Context.current();
  return {
    number: info.attempt,
    resumed: info.heartbeatDetails,
    keepReporting: (progress) => keepHeartbeating(progress, true),
  };
}
