import { COUNTRY_TIME_ZONES, countryDate, type CountryCode } from '../../fiscal/country-dates.ts';
import { zonedMidnight } from '../../fiscal/sync-window.ts';

const DAY_MS = 86_400_000;

/** Whole days from one `YYYY-MM-DD` to another. */
const daysBetween = (from: string, to: string) =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/**
 * When a payment dated `payDate` is handed to the gateway (epoch ms): at the start of that day where the company is,
 * at once when that day has begun. `dayMs` shortens the days ahead (tests, `PAYMENT_DAY_MS`): each counts that long.
 */
export function releaseAt(payDate: string, country: CountryCode, now: Date, dayMs: number | null): number {
  const today = countryDate(now, country);
  if (payDate <= today) return now.getTime();
  if (dayMs !== null) return now.getTime() + daysBetween(today, payDate) * dayMs;
  return zonedMidnight(payDate, COUNTRY_TIME_ZONES[country]).getTime();
}

/** Today where the company is. */
export const todayIn = (country: CountryCode, now = new Date()) => countryDate(now, country);
