import { describe, expect, it } from 'vitest';
import {
  centsToDecimal,
  decimalToCents,
  fractionToPercent,
  isDecimal,
  normalizeDecimal,
  percentToFraction,
} from '../../../fiscal/money.ts';

describe('decimalToCents', () => {
  it('converts exactly, without floating point', () => {
    expect(decimalToCents('2023060.00')).toBe(202_306_000n);
    expect(decimalToCents('12')).toBe(1200n);
    expect(decimalToCents('.5')).toBe(50n);
    expect(decimalToCents('0.1')).toBe(10n);
    expect(decimalToCents('  14994.07 ')).toBe(1_499_407n);
    expect(decimalToCents('90071992547409.93')).toBe(9_007_199_254_740_993n);
  });

  it('rounds more than two decimals half-up on the magnitude', () => {
    expect(decimalToCents('1.005')).toBe(101n);
    expect(decimalToCents('1.004999')).toBe(100n);
    expect(decimalToCents('0.0087')).toBe(1n);
    expect(decimalToCents('2068.960000')).toBe(206_896n);
    expect(decimalToCents('-1.005')).toBe(-101n);
    expect(decimalToCents('-0.004')).toBe(0n);
  });

  it('refuses what is not a decimal number', () => {
    for (const value of ['', '1,5', '1e3', '2.023.060', 'abc', '1.2.3', '-']) {
      expect(isDecimal(value)).toBe(false);
      expect(() => decimalToCents(value)).toThrow(RangeError);
    }
  });
});

describe('decimal strings', () => {
  it('formats cents back', () => {
    expect(centsToDecimal(202_306_000n)).toBe('2023060.00');
    expect(centsToDecimal(-5n)).toBe('-0.05');
    expect(centsToDecimal(0n)).toBe('0.00');
  });

  it('moves between percentages and fractions exactly', () => {
    expect(percentToFraction('19.00')).toBe('0.19');
    expect(percentToFraction('2.5')).toBe('0.025');
    expect(percentToFraction('0.000')).toBe('0');
    expect(percentToFraction('100')).toBe('1');
    expect(fractionToPercent('0.160000')).toBe('16');
    expect(fractionToPercent('0.106667')).toBe('10.6667');
    expect(fractionToPercent('1')).toBe('100');
    expect(normalizeDecimal('019.00')).toBe('19');
    expect(normalizeDecimal('-0.00')).toBe('0');
    expect(normalizeDecimal('+3.140')).toBe('3.14');
  });
});
