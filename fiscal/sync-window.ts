// The date windows a fiscal synchronisation asks for: the last 24 hours in Mexico City (SAT bulk download), or whole
// Bogotá days from the day after the last sync to today (DIAN e-mail pipeline). Offsets come from the time-zone
// database, not constants, so a future change of rules (Mexico dropped daylight saving time in 2022) is followed.

export const MEXICO_CITY = 'America/Mexico_City';
export const BOGOTA = 'America/Bogota';
/** A Colombian company that never synchronised looks this many days back. */
export const FIRST_COLOMBIAN_SYNC_DAYS = 45;

const DAY_MS = 24 * 60 * 60 * 1000;
const formatters = new Map<string, Intl.DateTimeFormat>();

function wallClock(instant: Date, timeZone: string) {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = Object.fromEntries(formatter.formatToParts(instant).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const pad = (value: number, size = 2) => String(Math.abs(value)).padStart(size, '0');

/** The calendar day (`YYYY-MM-DD`) of an instant in a time zone. */
export function dateInZone(instant: Date, timeZone: string): string {
  const { year, month, day } = wallClock(instant, timeZone);
  return `${pad(year, 4)}-${pad(month)}-${pad(day)}`;
}

/** An instant as ISO 8601 with the zone's offset at that instant, to the second (`2026-03-01T08:15:00-06:00`). */
export function isoInZone(instant: Date, timeZone: string): string {
  const seconds = Math.floor(instant.getTime() / 1000) * 1000;
  const local = wallClock(new Date(seconds), timeZone);
  const offsetMinutes = Math.round(
    (Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - seconds) / 60_000,
  );
  const sign = offsetMinutes < 0 ? '-' : '+';
  const date = `${pad(local.year, 4)}-${pad(local.month)}-${pad(local.day)}`;
  const time = `${pad(local.hour)}:${pad(local.minute)}:${pad(local.second)}`;
  const offset = `${sign}${pad(Math.trunc(offsetMinutes / 60))}:${pad(offsetMinutes % 60)}`;
  return `${date}T${time}${offset}`;
}

/** `YYYY-MM-DD` plus (or minus) whole days. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export interface MexicanSyncWindow {
  /** ISO 8601 in Mexico City time, whole seconds: SAT periods are to the second. */
  from: string;
  to: string;
}

/** Mexico: the 24 hours up to `now` (to the second), written in Mexico City time. */
export function mexicanSyncWindow(now: Date): MexicanSyncWindow {
  const to = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return { from: isoInZone(new Date(to.getTime() - DAY_MS), MEXICO_CITY), to: isoInZone(to, MEXICO_CITY) };
}

export interface ColombianSyncWindow {
  /** Inclusive Bogotá days, `YYYY-MM-DD`. */
  from: string;
  to: string;
}

/**
 * Colombia: from the Bogotá day after the last sync to today, or 45 days back when there never was one; null when
 * that is empty (the last sync was today).
 */
export function colombianSyncWindow(now: Date, lastSyncAt: Date | null): ColombianSyncWindow | null {
  const today = dateInZone(now, BOGOTA);
  const from = lastSyncAt ? addDays(dateInZone(lastSyncAt, BOGOTA), 1) : addDays(today, -FIRST_COLOMBIAN_SYNC_DAYS);
  return from > today ? null : { from, to: today };
}

/** The instants a window of Bogotá days covers: from the first day's 00:00 to the end of the last day. */
export function colombianWindowInstants(window: ColombianSyncWindow): { fromInstant: Date; untilInstant: Date } {
  return {
    fromInstant: zonedMidnight(window.from, BOGOTA),
    untilInstant: zonedMidnight(addDays(window.to, 1), BOGOTA),
  };
}

/** The instant a calendar day starts in a time zone. */
export function zonedMidnight(date: string, timeZone: string): Date {
  const guess = Date.parse(`${date}T00:00:00Z`);
  // The zone's offset near that day, applied once (no zone we use changes offset at midnight).
  const local = wallClock(new Date(guess), timeZone);
  const offset = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second) - guess;
  return new Date(guess - offset);
}
