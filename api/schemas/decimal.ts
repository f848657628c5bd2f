import { z } from 'zod';

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;
const EXPONENT = /^(-?)(\d+)(?:\.(\d+))?e([+-]\d+)$/;

/** A JSON number as the decimal it was written as: `String()` gives the shortest round-trip digits; exponents are expanded. */
export function numberToDecimal(value: number): string {
  const text = String(value);
  const match = EXPONENT.exec(text);
  if (!match) return text;
  const [, sign, whole, fraction = '', exponent] = match;
  const digits = `${whole}${fraction}`;
  const point = whole!.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** `"-0012.500"` → `"-12.5"`; null when the text is not a plain decimal (no exponent, no separators). */
export function canonicalDecimal(text: string): string | null {
  const match = DECIMAL.exec(text);
  if (!match) return null;
  const whole = match[2]!.replace(/^0+(?=\d)/, '');
  const fraction = (match[3] ?? '').replace(/0+$/, '');
  const magnitude = fraction ? `${whole}.${fraction}` : whole;
  return match[1] === '-' && magnitude !== '0' ? `-${magnitude}` : magnitude;
}

/** Decimals after the point of a canonical decimal. */
export const decimalPlaces = (decimal: string): number => decimal.split('.')[1]?.length ?? 0;

/** A canonical decimal as an integer of `scale` decimal places, rounded half away from zero (exact, no floats). */
export function scaleDecimal(decimal: string, scale: number): bigint {
  const negative = decimal.startsWith('-');
  const [whole, fraction = ''] = (negative ? decimal.slice(1) : decimal).split('.');
  const kept = BigInt(`${whole}${fraction.slice(0, scale).padEnd(scale, '0')}`);
  const rounded = (fraction[scale] ?? '0') >= '5' ? kept + 1n : kept;
  return negative ? -rounded : rounded;
}

/** A decimal amount of money (`"1234.565"`) in cents, rounded half away from zero. */
export const amountToCents = (decimal: string): bigint => scaleDecimal(decimal, 2);

/** Orders two canonical decimals exactly. */
export function compareDecimals(a: string, b: string): number {
  const scale = Math.max(decimalPlaces(a), decimalPlaces(b));
  const difference = scaleDecimal(a, scale) - scaleDecimal(b, scale);
  return difference === 0n ? 0 : difference < 0n ? -1 : 1;
}

interface DecimalRules {
  /** At most this many decimals; more is refused (omit for amounts, which are rounded to cents instead). */
  maxDecimals?: number;
  min?: string;
  /** Whether `min` itself is refused (e.g. quantities must be above zero). */
  exclusiveMin?: boolean;
  max?: string;
}

/**
 * A decimal field, given as a JSON number or a decimal string (`"0.19"`), read into its canonical string so that
 * no float arithmetic touches it. Bounds are checked exactly.
 */
export function decimalInput(rules: DecimalRules) {
  // The number's bounds are published; a decimal string's are only described (a pattern cannot compare).
  const bounds = {
    ...(rules.min !== undefined ? { [rules.exclusiveMin ? 'exclusiveMinimum' : 'minimum']: Number(rules.min) } : {}),
    ...(rules.max !== undefined ? { maximum: Number(rules.max) } : {}),
  };
  return z.union([z.number().meta(bounds), z.string()]).transform((value, ctx) => {
    const decimal =
      typeof value === 'number'
        ? Number.isFinite(value)
          ? canonicalDecimal(numberToDecimal(value))
          : null
        : canonicalDecimal(value.trim());
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message, input: value });
      return z.NEVER;
    };
    if (decimal === null) return fail('Must be a decimal number, e.g. 1234.56');
    if (decimal.replace(/^-/, '').split('.')[0]!.length > 15)
      return fail('Must have at most 15 digits before the decimal point');
    if (rules.maxDecimals !== undefined && decimalPlaces(decimal) > rules.maxDecimals)
      return fail(`Must have at most ${rules.maxDecimals} decimals`);
    if (rules.min !== undefined) {
      const order = compareDecimals(decimal, rules.min);
      if (order < 0 || (rules.exclusiveMin && order === 0))
        return fail(`Must be ${rules.exclusiveMin ? 'greater than' : 'at least'} ${rules.min}`);
    }
    if (rules.max !== undefined && compareDecimals(decimal, rules.max) > 0) return fail(`Must be at most ${rules.max}`);
    return decimal;
  });
}
