// Colombian business days (días hábiles): Monday to Friday, except public holidays. Days are Bogotá calendar days
// (UTC-5, no daylight saving time).

import { isColombianHoliday } from './colombian-holidays.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const BOGOTA_OFFSET_MS = -5 * 60 * 60 * 1000;

/** The Bogotá calendar day (`YYYY-MM-DD`) of an instant. */
export function colombianDate(instant: Date): string {
  return new Date(instant.getTime() + BOGOTA_OFFSET_MS).toISOString().slice(0, 10);
}

/** The instant a Bogotá calendar day starts (00:00 -05:00). */
export function startOfColombianDay(date: string): Date {
  return new Date(`${date}T00:00:00-05:00`);
}

const shift = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** Whether a `YYYY-MM-DD` day is a Colombian business day (Monday to Friday, not a holiday). */
export function isColombianBusinessDay(date: string): boolean {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return weekday !== 0 && weekday !== 6 && !isColombianHoliday(date);
}

/** The `count`-th business day after `date` (the day itself is not counted). */
export function addColombianBusinessDays(date: string, count: number): string {
  if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be a positive integer');
  let day = date;
  for (let found = 0; found < count;) {
    day = shift(day, 1);
    if (isColombianBusinessDay(day)) found++;
  }
  return day;
}

/**
 * When a period of `count` business days following the Bogotá day of `instant` is over: the start of the calendar day
 * after the last of them. Before it the period is running; from it on, it has elapsed.
 */
export function businessDaysElapseAt(instant: Date, count: number): Date {
  return startOfColombianDay(shift(addColombianBusinessDays(colombianDate(instant), count), 1));
}
