import { describe, expect, it } from 'vitest';
import { paymentDayMsFromEnv } from '../../../temporal/timings.ts';
import { releaseAt, todayIn } from '../../../services/payments/schedule.ts';

// 2026-11-25 23:30 in Bogotá (UTC−5) is already the 26th in UTC, and still the 25th in Mexico City (UTC−6).
const now = new Date('2026-11-26T04:30:00Z');

describe('releaseAt', () => {
  it('counts days where the company is, not in UTC', () => {
    expect(todayIn('COL', now)).toBe('2026-11-25');
    expect(todayIn('MEX', now)).toBe('2026-11-25');
    expect(releaseAt('2026-11-25', 'COL', now, null)).toBe(now.getTime());
    expect(releaseAt('2026-11-26', 'COL', now, null)).toBe(Date.parse('2026-11-26T05:00:00Z'));
    expect(releaseAt('2026-11-26', 'MEX', now, null)).toBe(Date.parse('2026-11-26T06:00:00Z'));
  });

  it('releases at once a date already past', () => {
    expect(releaseAt('2026-10-01', 'MEX', now, null)).toBe(now.getTime());
  });

  it('shortens each day ahead to dayMs when tests ask for it', () => {
    expect(releaseAt('2026-12-05', 'COL', now, 100)).toBe(now.getTime() + 10 * 100);
    expect(releaseAt('2026-11-25', 'COL', now, 100)).toBe(now.getTime());
  });
});

describe('PAYMENT_DAY_MS', () => {
  it('is read in tests and refused in production', () => {
    expect(paymentDayMsFromEnv({})).toBeNull();
    expect(paymentDayMsFromEnv({ PAYMENT_DAY_MS: '250' })).toBe(250);
    expect(() => paymentDayMsFromEnv({ PAYMENT_DAY_MS: '0' })).toThrow('positive integer');
    expect(() => paymentDayMsFromEnv({ PAYMENT_DAY_MS: '250', NODE_ENV: 'production' })).toThrow(
      'refused in production',
    );
  });
});
