// Colombia's public holidays (festivos) as rules, not a table: Ley 51 de 1983 ("Ley Emiliani") moves most of them to
// the following Monday, and the Easter-based ones are counted from Easter Sunday (Gregorian computus).

/** The first year the current rules (Ley 51 de 1983) apply to; earlier years are refused. */
export const FIRST_COVERED_YEAR = 1984;

export interface Holiday {
  /** `YYYY-MM-DD`. */
  date: string;
  name: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Holidays kept on their date whatever the weekday. */
const FIXED: readonly [month: number, day: number, name: string][] = [
  [1, 1, 'Año Nuevo'],
  [5, 1, 'Día del Trabajo'],
  [7, 20, 'Día de la Independencia'],
  [8, 7, 'Batalla de Boyacá'],
  [12, 8, 'Inmaculada Concepción'],
  [12, 25, 'Navidad'],
];

/** Holidays moved to the following Monday when they do not fall on one (Ley Emiliani). */
const MOVED: readonly [month: number, day: number, name: string][] = [
  [1, 6, 'Día de los Reyes Magos'],
  [3, 19, 'Día de San José'],
  [6, 29, 'San Pedro y San Pablo'],
  [8, 15, 'Asunción de la Virgen'],
  [10, 12, 'Día de la Raza'],
  [11, 1, 'Todos los Santos'],
  [11, 11, 'Independencia de Cartagena'],
];

/** Days from Easter Sunday: Holy Thursday and Good Friday stay; the others are moved to Monday. */
const EASTER_FIXED: readonly [offset: number, name: string][] = [
  [-3, 'Jueves Santo'],
  [-2, 'Viernes Santo'],
];
const EASTER_MOVED: readonly [offset: number, name: string][] = [
  [39, 'Ascensión del Señor'],
  [60, 'Corpus Christi'],
  [68, 'Sagrado Corazón'],
];

/** Easter Sunday of a Gregorian year (anonymous Gregorian algorithm), as a UTC midnight timestamp. */
export function easterSunday(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, day);
}

const toDate = (utcMidnight: number) => new Date(utcMidnight).toISOString().slice(0, 10);

/** The same day if it is a Monday, else the next Monday. */
function nextMonday(utcMidnight: number): number {
  const weekday = new Date(utcMidnight).getUTCDay();
  return utcMidnight + ((8 - weekday) % 7) * DAY_MS;
}

function checkYear(year: number): void {
  if (!Number.isInteger(year) || year < FIRST_COVERED_YEAR) {
    throw new RangeError(
      `The Colombian holiday rules are implemented from ${FIRST_COVERED_YEAR} (Ley 51 de 1983); ${year} is not covered`,
    );
  }
}

/** Colombia's public holidays of a year, in date order (two holidays on one day are listed once, names joined). */
export function colombianHolidays(year: number): Holiday[] {
  checkYear(year);
  const easter = easterSunday(year);
  const days = new Map<number, string[]>();
  const add = (day: number, name: string) => days.set(day, [...(days.get(day) ?? []), name]);
  for (const [month, day, name] of FIXED) add(Date.UTC(year, month - 1, day), name);
  for (const [month, day, name] of MOVED) add(nextMonday(Date.UTC(year, month - 1, day)), name);
  for (const [offset, name] of EASTER_FIXED) add(easter + offset * DAY_MS, name);
  for (const [offset, name] of EASTER_MOVED) add(nextMonday(easter + offset * DAY_MS), name);
  return [...days.entries()]
    .sort(([left], [right]) => left - right)
    .map(([day, names]) => ({ date: toDate(day), name: names.join(' / ') }));
}

const cache = new Map<number, ReadonlySet<string>>();

/** Whether a `YYYY-MM-DD` day is a Colombian public holiday. */
export function isColombianHoliday(date: string): boolean {
  const year = Number(date.slice(0, 4));
  let holidays = cache.get(year);
  if (!holidays) {
    holidays = new Set(colombianHolidays(year).map((holiday) => holiday.date));
    cache.set(year, holidays);
  }
  return holidays.has(date);
}
