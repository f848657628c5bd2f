import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../api/errors.ts';
import { rateLimiter } from '../../../api/middleware/rate-limit.ts';

function refusal(take: () => void): ApiError {
  try {
    take();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('the request was allowed');
}

describe('rateLimiter', () => {
  it('allows a burst, then refuses with the wait until the next token, then refills at the configured rate', () => {
    let now = 0;
    const limiter = rateLimiter({ perMinute: 60, burst: 3 }, () => now);
    for (let i = 0; i < 3; i++) limiter.take('key-a');
    const refused = refusal(() => limiter.take('key-a'));
    expect(refused.status).toBe(429);
    expect(refused.code).toBe('rate_limited');
    expect(refused.body).toMatchObject({ code: 'rate_limited', retry_after_seconds: 1 });
    expect(refused.headers['retry-after']).toBe('1');

    now = 999;
    expect(() => limiter.take('key-a')).toThrow(ApiError);
    now = 1_000;
    limiter.take('key-a');
    expect(() => limiter.take('key-a')).toThrow(ApiError);
  });

  it('keeps each key to its own allowance and never refills beyond the burst', () => {
    let now = 0;
    const limiter = rateLimiter({ perMinute: 6, burst: 2 }, () => now);
    limiter.take('key-a');
    limiter.take('key-a');
    limiter.take('key-b');
    expect(refusal(() => limiter.take('key-a')).body).toMatchObject({ retry_after_seconds: 10 });

    now = 3_600_000;
    limiter.take('key-a');
    limiter.take('key-a');
    expect(() => limiter.take('key-a')).toThrow(ApiError);
  });
});
