import { describe, expect, it } from 'vitest';
import {
  amountToCents,
  canonicalDecimal,
  compareDecimals,
  decimalInput,
  numberToDecimal,
} from '../../api/schemas/decimal.ts';

describe('decimals without floats', () => {
  it('reads a JSON number as the decimal it was written as, exponents expanded', () => {
    expect(numberToDecimal(1234.565)).toBe('1234.565');
    expect(numberToDecimal(1e21)).toBe('1000000000000000000000');
    expect(numberToDecimal(1.5e-7)).toBe('0.00000015');
    expect(numberToDecimal(-2.5e-7)).toBe('-0.00000025');
  });

  it('canonicalises plain decimals and refuses anything else', () => {
    expect(canonicalDecimal('007.50')).toBe('7.5');
    expect(canonicalDecimal('-0.000')).toBe('0');
    expect(canonicalDecimal('+3')).toBe('3');
    for (const text of ['1e3', '1,5', '.5', '5.', '', 'abc', '1 000']) expect(canonicalDecimal(text)).toBeNull();
  });

  it('rounds amounts to cents half away from zero, where floats would not', () => {
    expect(amountToCents('1234.565')).toBe(123457n);
    expect(amountToCents('2.675')).toBe(268n); // (2.675).toFixed(2) is "2.67"
    expect(amountToCents('1.005')).toBe(101n); // Math.round(1.005 * 100) is 100
    expect(amountToCents('-0.005')).toBe(-1n);
    expect(amountToCents('0.004999')).toBe(0n);
    expect(amountToCents('12')).toBe(1200n);
    expect(amountToCents('90071992547409.93')).toBe(9007199254740993n);
  });

  it('compares exactly', () => {
    expect(compareDecimals('2.50', '2.5')).toBe(0);
    expect(compareDecimals('0.1', '0.09999999')).toBe(1);
    expect(compareDecimals('-1', '0')).toBe(-1);
  });

  it('validates a decimal field given as a number or a string, with exact bounds and decimals', () => {
    const rate = decimalInput({ maxDecimals: 8, min: '0', max: '10' });
    expect(rate.parse(0.19)).toBe('0.19');
    expect(rate.parse(' 0.00966 ')).toBe('0.00966');
    expect(rate.safeParse('19%').success).toBe(false);
    expect(rate.safeParse(-0.1).error?.issues[0]?.message).toBe('Must be at least 0');
    expect(rate.safeParse('0.123456789').error?.issues[0]?.message).toBe('Must have at most 8 decimals');
    expect(rate.safeParse(Number.NaN).success).toBe(false);
    const quantity = decimalInput({ min: '0', exclusiveMin: true });
    expect(quantity.safeParse(0).error?.issues[0]?.message).toBe('Must be greater than 0');
    expect(quantity.safeParse('1234567890123456').success).toBe(false);
  });
});
