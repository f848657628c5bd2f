import { describe, expect, it } from 'vitest';
import { checkAccountNumber, clabeCheckDigit, isValidClabe } from '../../../db/banks/account-number.ts';

describe('CLABE check digit', () => {
  it('matches published CLABEs', () => {
    // Banxico's worked example (IXE, 032) and a Banamex (002) CLABE.
    expect(clabeCheckDigit('03218000011835971')).toBe(9);
    expect(isValidClabe('032180000118359719')).toBe(true);
    expect(isValidClabe('002010077777777771')).toBe(true);
  });

  it('weights 3, 7, 1 over the first 17 digits, each product mod 10, and takes (10 − sum mod 10) mod 10', () => {
    // 1×3 = 3, the other digits are zero: (10 − 3) mod 10 = 7.
    expect(clabeCheckDigit('10000000000000000')).toBe(7);
    // 9×7 = 63 → 3; 9×1 = 9; sum 12 → (10 − 2) mod 10 = 8.
    expect(clabeCheckDigit('09900000000000000')).toBe(8);
    // A sum that is a multiple of 10 gives 0, not 10.
    expect(clabeCheckDigit('00000000000000000')).toBe(0);
  });

  it('refuses a wrong check digit, a wrong length and non-digits', () => {
    expect(isValidClabe('032180000118359718')).toBe(false);
    expect(isValidClabe('03218000011835971')).toBe(false);
    expect(isValidClabe('03218000011835971X')).toBe(false);
    expect(() => clabeCheckDigit('123')).toThrow(RangeError);
  });
});

describe('account numbers', () => {
  it('accepts a Mexican CLABE of the chosen bank, ignoring spaces and hyphens', () => {
    expect(checkAccountNumber('MEX', '002', '002 010 07777777777-1')).toEqual({
      ok: true,
      accountNumber: '002010077777777771',
    });
  });

  it('refuses a CLABE of another bank, a bad check digit and anything that is not 18 digits', () => {
    expect(checkAccountNumber('MEX', '012', '002010077777777771')).toEqual({
      ok: false,
      message: expect.stringContaining('002'),
    });
    expect(checkAccountNumber('MEX', '002', '002010077777777772')).toEqual({
      ok: false,
      message: expect.stringContaining('check digit'),
    });
    expect(checkAccountNumber('MEX', '002', '0020100777777777')).toEqual({
      ok: false,
      message: expect.stringContaining('18-digit'),
    });
  });

  it('accepts Colombian accounts of 6 to 20 digits', () => {
    expect(checkAccountNumber('COL', '1007', '123456')).toEqual({ ok: true, accountNumber: '123456' });
    expect(checkAccountNumber('COL', '1007', '1234-5678-9012-3456-7890')).toEqual({
      ok: true,
      accountNumber: '12345678901234567890',
    });
    expect(checkAccountNumber('COL', '1007', '12345').ok).toBe(false);
    expect(checkAccountNumber('COL', '1007', '123456789012345678901').ok).toBe(false);
    expect(checkAccountNumber('COL', '1007', '12345A78').ok).toBe(false);
    expect(checkAccountNumber('COL', '1007', '000000').ok).toBe(false);
  });

  it('takes a mobile number for Nequi and Daviplata', () => {
    expect(checkAccountNumber('COL', '1507', '300 123 4567')).toEqual({ ok: true, accountNumber: '3001234567' });
    expect(checkAccountNumber('COL', '1551', '4001234567').ok).toBe(false);
    expect(checkAccountNumber('COL', '1551', '30012345678').ok).toBe(false);
  });
});
