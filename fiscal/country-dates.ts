// A document's calendar days are those of the place it was issued: an instant stored in UTC falls on another day
// there in the evening (from 19:00 in Bogotá, 18:00 in Mexico City, 16:00 in Tijuana), so dates are never cut from
// an ISO string.

import { BOGOTA, MEXICO_CITY, dateInZone } from './sync-window.ts';

export type CountryCode = 'COL' | 'MEX';

/** The zone each country's days are counted in (Mexico: its capital, as the fiscal sync does). */
export const COUNTRY_TIME_ZONES: Readonly<Record<CountryCode, string>> = { COL: BOGOTA, MEX: MEXICO_CITY };

/** The calendar day (`YYYY-MM-DD`) of an instant in a country. */
export function countryDate(instant: Date, country: CountryCode): string {
  return dateInZone(instant, COUNTRY_TIME_ZONES[country]);
}

/** What a document says of where it was issued: a CFDI's zone of its place of issue, kept in its fiscal metadata. */
export interface DatedDocument {
  country: CountryCode;
  fiscalMetadata?: Record<string, unknown> | null;
}

/** The calendar day of an instant where the document was issued, so that its issue date reads as written on it. */
export function documentDate(instant: Date, document: DatedDocument): string {
  const zone = document.fiscalMetadata?.['timeZone'];
  return typeof zone === 'string' && zone ? dateInZone(instant, zone) : countryDate(instant, document.country);
}
