// Fiscal dates as ISO 8601 strings with an explicit offset, computed without reading the clock.

import { FiscalDocumentError } from './errors.ts';

/** Colombia has had no daylight saving time since 1993: one fixed offset. */
export const COLOMBIA_OFFSET = '-05:00';

const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME_PATTERN = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const LOCAL_DATE_TIME_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

/** Whether a `YYYY-MM-DD` string names a real calendar day. */
export function isCalendarDate(value: string): boolean {
  const match = DATE_PATTERN.exec(value);
  if (match === null) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Checks a `YYYY-MM-DD` value found at `element`. */
export function dateAt(value: string, element: string, file: string): string {
  if (!isCalendarDate(value)) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      element,
      `expected a date as YYYY-MM-DD, found ${JSON.stringify(value)}`,
    );
  }
  return value;
}

/** A UBL IssueDate + IssueTime as one ISO date-time; a time without offset is Colombian time (-05:00). */
export function colombianDateTime(
  date: string,
  time: string | null,
  dateElement: string,
  timeElement: string,
  file: string,
): string {
  dateAt(date, dateElement, file);
  if (time === null) return `${date}T00:00:00${COLOMBIA_OFFSET}`;
  const match = TIME_PATTERN.exec(time);
  if (match === null || Number(match[1]) > 23 || Number(match[2]) > 59 || Number(match[3]) > 59) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      timeElement,
      `expected a time as HH:MM:SS with an optional offset, found ${JSON.stringify(time)}`,
    );
  }
  return `${date}T${match[1]}:${match[2]}:${match[3]}${match[4] ?? ''}${match[5] ?? COLOMBIA_OFFSET}`;
}

/** The start of a Colombian calendar day as an ISO date-time. */
export function colombianStartOfDay(date: string): string {
  return `${date}T00:00:00${COLOMBIA_OFFSET}`;
}

/**
 * The IANA zone of a Mexican place of issue, from the first two digits of its postal code (one zone per state).
 * Border municipalities that follow US daylight saving time are not told apart.
 */
export function mexicanTimeZone(postalCode: string | null): string {
  const state = Number(postalCode?.slice(0, 2) ?? Number.NaN);
  if (state === 21 || state === 22) return 'America/Tijuana'; // Baja California
  if (state === 23 || state === 63 || (state >= 80 && state <= 82)) return 'America/Mazatlan'; // Baja California Sur, Nayarit, Sinaloa
  if (state >= 83 && state <= 85) return 'America/Hermosillo'; // Sonora
  if (state === 32) return 'America/Ciudad_Juarez';
  if (state === 31 || state === 33) return 'America/Chihuahua';
  if (state === 77) return 'America/Cancun'; // Quintana Roo
  return 'America/Mexico_City';
}

/** A CFDI local date-time (no offset, local to the place of issue) as ISO 8601 with that zone's offset at that moment. */
export function mexicanDateTime(local: string, timeZone: string, element: string, file: string): string {
  const match = LOCAL_DATE_TIME_PATTERN.exec(local);
  if (
    match === null ||
    !isCalendarDate(local.slice(0, 10)) ||
    Number(match[4]) > 23 ||
    Number(match[5]) > 59 ||
    Number(match[6]) > 59
  ) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      element,
      `expected a date-time as YYYY-MM-DDTHH:MM:SS, found ${JSON.stringify(local)}`,
    );
  }
  const wallClock = Date.UTC(
    Number(match[1]),
    Number(match[2]) - 1,
    Number(match[3]),
    Number(match[4]),
    Number(match[5]),
    Number(match[6]),
  );
  // Two passes settle the offset around a daylight-saving change; the wall clock itself stays as written.
  const firstGuess = offsetMinutes(wallClock, timeZone);
  const offset = offsetMinutes(wallClock - firstGuess * 60_000, timeZone);
  return `${local}${formatOffset(offset)}`;
}

/** Building a formatter costs far more than using one, and there are a handful of zones. */
const offsetFormats = new Map<string, Intl.DateTimeFormat>();

function offsetMinutes(instant: number, timeZone: string): number {
  let format = offsetFormats.get(timeZone);
  if (!format)
    offsetFormats.set(timeZone, (format = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })));
  const parts = format.formatToParts(new Date(instant));
  const label = parts.find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(label);
  if (match === null || match[1] === undefined) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

function formatOffset(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  const absolute = Math.abs(minutes);
  return `${sign}${String(Math.floor(absolute / 60)).padStart(2, '0')}:${String(absolute % 60).padStart(2, '0')}`;
}
