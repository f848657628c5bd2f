import { dianCheckDigit } from '../../fiscal/radian-person.ts';
import type { Country } from '../companies/company.entity.ts';

/**
 * The identifier types a company's beneficiaries are named by, as imports name them: Colombia's are DIAN's identity
 * document types (NIT, cédula de ciudadanía, de extranjería, tarjeta de identidad, registro civil, NUIP, tarjeta de
 * extranjería, passport, PEP, PPT, a foreign document, a NIT of another country); Mexico's suppliers and employees
 * are named by their RFC.
 */
export const IDENTIFIER_TYPES = {
  COL: ['NIT', 'CC', 'CE', 'TI', 'RC', 'NUIP', 'TE', 'PA', 'PEP', 'PPT', 'FOREIGN_ID', 'NIT_EXT'],
  MEX: ['RFC'],
} as const satisfies Record<Country, readonly string[]>;

/** Colombian documents numbered by digits alone. */
const NUMERIC_TYPES = new Set(['CC', 'TI', 'RC', 'NUIP']);

/** An RFC: 3 letters (a company) or 4 (a person), the date as YYMMDD, and the homoclave, whose last character is a digit or A. */
const RFC = /^([A-ZÑ&]{3,4})(\d{2})(\d{2})(\d{2})([A-Z\d]{2}[A\d])$/;

export type IdentifierCheck =
  | { ok: true; identifierType: string; identifierNumber: string }
  | { ok: false; field: 'identifier_type' | 'identifier_number'; message: string };

const refuse = (field: 'identifier_type' | 'identifier_number', message: string): IdentifierCheck => ({
  ok: false,
  field,
  message,
});

/**
 * Checks a beneficiary's identifier against its type and the company's country, and writes it as imports write the
 * same identifier, so that a supplier's documents find the beneficiary: the type upper-cased; the number without
 * dots, spaces or hyphens, upper-cased. A NIT's check digit, when given after a hyphen (`900123456-8`), must be
 * DIAN's modulo-11 digit of the number, and is not kept. An RFC must be one: 12 or 13 characters with a real date.
 */
export function checkIdentifier(country: Country, type: string, number: string): IdentifierCheck {
  const identifierType = type.trim().toUpperCase();
  const types: readonly string[] = IDENTIFIER_TYPES[country];
  if (!types.includes(identifierType))
    return refuse('identifier_type', `Beneficiaries in ${country} are identified by ${types.join(', ')}`);
  const compact = number.replace(/[.\s]/g, '').toUpperCase();
  if (identifierType === 'NIT') {
    const parts = /^(\d+)(?:-(\d))?$/.exec(compact);
    if (!parts) return refuse('identifier_number', 'A NIT is digits, optionally followed by -check digit');
    const [, digits = '', given] = parts;
    if (digits.length < 3 || digits.length > 15) return refuse('identifier_number', 'A NIT has 3 to 15 digits');
    if (/^0+$/.test(digits)) return refuse('identifier_number', 'Must not be all zeros');
    const expected = dianCheckDigit(digits);
    if (given !== undefined && given !== expected)
      return refuse('identifier_number', `The check digit of NIT ${digits} is ${expected}, not ${given}`);
    return { ok: true, identifierType, identifierNumber: digits };
  }
  const identifierNumber = compact.replaceAll('-', '');
  if (identifierType === 'RFC') {
    const parts = RFC.exec(identifierNumber);
    if (!parts || !isRfcDate(parts[2]!, parts[3]!, parts[4]!))
      return refuse(
        'identifier_number',
        'An RFC is 3 letters (a company) or 4 (a person), a date as YYMMDD and a 3-character homoclave',
      );
    return { ok: true, identifierType, identifierNumber };
  }
  if (NUMERIC_TYPES.has(identifierType)) {
    if (!/^\d{3,15}$/.test(identifierNumber))
      return refuse('identifier_number', `A ${identifierType} is 3 to 15 digits`);
    if (/^0+$/.test(identifierNumber)) return refuse('identifier_number', 'Must not be all zeros');
    return { ok: true, identifierType, identifierNumber };
  }
  if (!/^[A-Z\d]{3,20}$/.test(identifierNumber))
    return refuse('identifier_number', `A ${identifierType} is 3 to 20 letters and digits`);
  return { ok: true, identifierType, identifierNumber };
}

/** A real day of some year ending in YY (29 February when YY is a multiple of 4). */
function isRfcDate(year: string, month: string, day: string): boolean {
  const m = Number(month);
  const d = Number(day);
  if (m < 1 || m > 12 || d < 1) return false;
  const leap = Number(year) % 4 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]!;
  return d <= days;
}
