// A document's calendar days are those of its country: an instant stored in UTC falls on another day there in the
// evening (from 19:00 in Bogotá, 18:00 in Mexico City), so dates are never cut from an ISO string.

import { BOGOTA, MEXICO_CITY, dateInZone } from './sync-window.ts';

export type CountryCode = 'COL' | 'MEX';

/** The zone each country's days are counted in (Mexico: its capital, as the fiscal sync does). */
export const COUNTRY_TIME_ZONES: Readonly<Record<CountryCode, string>> = { COL: BOGOTA, MEX: MEXICO_CITY };

/** The calendar day (`YYYY-MM-DD`) of an instant in a country. */
export function countryDate(instant: Date, country: CountryCode): string {
  return dateInZone(instant, COUNTRY_TIME_ZONES[country]);
}
