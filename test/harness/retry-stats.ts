/** Why a client tried again: what a real integrator (or operator) sees while a part of the service is down. */
export type RetryReason =
  'connection' | 'timeout' | 'unavailable' | 'in_progress' | 'rate_limited' | 'server_error' | 'cli_failure';

/** How often clients had to try again, by reason, and every 5xx other than 503 (an unmapped failure). */
export class RetryStats {
  readonly retries: Record<RetryReason, number> = {
    connection: 0,
    timeout: 0,
    unavailable: 0,
    in_progress: 0,
    rate_limited: 0,
    server_error: 0,
    cli_failure: 0,
  };
  readonly serverErrors: string[] = [];
  /** Every request sent, retries included: API calls and CLI runs. */
  readonly requests = { api: 0, cli: 0 };

  count(reason: RetryReason, detail?: string): void {
    this.retries[reason] += 1;
    if (reason === 'server_error' && detail) this.serverErrors.push(detail);
  }

  get total(): number {
    return Object.values(this.retries).reduce((sum, count) => sum + count, 0);
  }
}

/** Waits before the `attempt`-th retry: from 250 ms, doubling, capped at 3 s, with jitter. */
export function backoff(attempt: number): Promise<void> {
  const base = Math.min(3_000, 250 * 2 ** Math.min(attempt, 4));
  return new Promise((resolve) => setTimeout(resolve, base * (0.5 + Math.random() / 2)));
}
