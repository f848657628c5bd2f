import { ApiError } from '../errors.ts';

/** Requests an API key may make: `perMinute` on average, up to `burst` at once. */
export interface RateLimit {
  perMinute: number;
  burst: number;
}

export interface RateLimiter {
  /** Spends one request of the key's allowance; throws 429 `rate_limited` when there is none left. */
  take(key: string): void;
}

interface Bucket {
  tokens: number;
  refilledAt: number;
}

/** Buckets kept before idle (full) ones are dropped; bounds memory whatever the number of keys. */
const PRUNE_ABOVE = 10_000;

/**
 * A token bucket per API key, in this process's memory: each API replica enforces the limit on its own, so behind
 * N replicas a key gets up to N times it (docs/decisions.md).
 */
export function rateLimiter(limit: RateLimit, now: () => number = () => performance.now()): RateLimiter {
  const buckets = new Map<string, Bucket>();
  const perMs = limit.perMinute / 60_000;

  const refill = (bucket: Bucket, at: number) => {
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (at - bucket.refilledAt) * perMs);
    bucket.refilledAt = at;
  };

  const prune = (at: number) => {
    for (const [key, bucket] of buckets) {
      refill(bucket, at);
      if (bucket.tokens >= limit.burst) buckets.delete(key);
    }
  };

  return {
    take(key) {
      const at = now();
      let bucket = buckets.get(key);
      if (!bucket) {
        if (buckets.size >= PRUNE_ABOVE) prune(at);
        bucket = { tokens: limit.burst, refilledAt: at };
        buckets.set(key, bucket);
      }
      refill(bucket, at);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return;
      }
      const retryAfterSeconds = Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000));
      throw new ApiError(429, 'rate_limited', `Too many requests for this API key; retry in ${retryAfterSeconds} s`, {
        extras: { retry_after_seconds: retryAfterSeconds },
        headers: { 'retry-after': String(retryAfterSeconds) },
      });
    },
  };
}
