// Exact decimal arithmetic on strings: fiscal amounts never pass through floating point.

import { FiscalDocumentError } from './errors.ts';

const DECIMAL_PATTERN = /^([+-]?)(?:(\d+)(?:\.(\d*))?|\.(\d+))$/;

interface Decimal {
  negative: boolean;
  /** All digits, no decimal point, no leading zeros (may be empty for zero). */
  digits: string;
  /** How many of `digits` sit after the decimal point. */
  scale: number;
}

function parse(value: string): Decimal | null {
  const match = DECIMAL_PATTERN.exec(value.trim());
  if (match === null) return null;
  const integer = match[2] ?? '';
  const fraction = match[3] ?? match[4] ?? '';
  return { negative: match[1] === '-', digits: (integer + fraction).replace(/^0+/, ''), scale: fraction.length };
}

function format(decimal: Decimal): string {
  let digits = decimal.digits;
  let scale = decimal.scale;
  if (digits === '') return '0';
  while (scale > 0 && digits.endsWith('0')) {
    digits = digits.slice(0, -1);
    scale -= 1;
  }
  if (scale < 0) {
    digits += '0'.repeat(-scale);
    scale = 0;
  }
  digits = digits.padStart(scale + 1, '0');
  const integer = digits.slice(0, digits.length - scale).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(digits.length - scale);
  const body = fraction === '' ? integer : `${integer}.${fraction}`;
  return decimal.negative && /[1-9]/.test(body) ? `-${body}` : body;
}

/** Whether a string is a plain decimal number (xs:decimal: optional sign, digits, optional fraction). */
export function isDecimal(value: string): boolean {
  return parse(value) !== null;
}

/** A decimal string as bigint cents, rounded half away from zero when it has more than 2 decimals. */
export function decimalToCents(value: string): bigint {
  const decimal = parse(value);
  if (decimal === null) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  const scaled = decimal.digits.padStart(decimal.scale + 1, '0');
  const integerPart = scaled.slice(0, scaled.length - decimal.scale);
  const fraction = scaled.slice(scaled.length - decimal.scale).padEnd(3, '0');
  let cents = BigInt(integerPart) * 100n + BigInt(fraction.slice(0, 2));
  // Half-up on the magnitude: a third decimal of 5 or more carries one cent.
  if (fraction.charAt(2) >= '5') cents += 1n;
  return decimal.negative ? -cents : cents;
}

/** Bigint cents as a decimal string with two decimals ("-12.30"). */
export function centsToDecimal(cents: bigint): string {
  const negative = cents < 0n;
  const digits = (negative ? -cents : cents).toString().padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** A decimal with exactly two decimals, the rest cut off rather than rounded, as DIAN's hash compositions write amounts. */
export function twoDecimalsTruncated(value: string): string {
  const decimal = parse(value);
  if (decimal === null) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  const digits = decimal.digits.padStart(decimal.scale + 1, '0');
  const integer = digits.slice(0, digits.length - decimal.scale).replace(/^0+(?=\d)/, '');
  const fraction = digits
    .slice(digits.length - decimal.scale)
    .padEnd(2, '0')
    .slice(0, 2);
  return `${decimal.negative && /[1-9]/.test(integer + fraction) ? '-' : ''}${integer}.${fraction}`;
}

/** The same decimal without sign noise, leading or trailing zeros ("019.00" → "19"). */
export function normalizeDecimal(value: string): string {
  const decimal = parse(value);
  if (decimal === null) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  return format(decimal);
}

/** A percentage as a fraction, exactly ("19.00" → "0.19"). */
export function percentToFraction(value: string): string {
  const decimal = parse(value);
  if (decimal === null) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  return format({ ...decimal, scale: decimal.scale + 2 });
}

/** A fraction as a percentage, exactly ("0.160000" → "16"). */
export function fractionToPercent(value: string): string {
  const decimal = parse(value);
  if (decimal === null) throw new RangeError(`not a decimal number: ${JSON.stringify(value)}`);
  return format({ ...decimal, scale: decimal.scale - 2 });
}

/** Parses an amount found at `element`, refusing anything that is not a decimal number. */
export function centsAt(value: string, element: string, file: string): bigint {
  if (!isDecimal(value)) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      element,
      `expected a decimal amount, found ${JSON.stringify(value)}`,
    );
  }
  return decimalToCents(value);
}

/** Checks a decimal found at `element` and returns it trimmed, unchanged otherwise. */
export function decimalAt(value: string, element: string, file: string): string {
  const trimmed = value.trim();
  if (!isDecimal(trimmed)) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      element,
      `expected a decimal number, found ${JSON.stringify(value)}`,
    );
  }
  return trimmed;
}

/** The absolute difference of two cent amounts. */
export function centsDistance(a: bigint, b: bigint): bigint {
  return a > b ? a - b : b - a;
}
