import { describe, expect, it } from 'vitest';
import {
  addColombianBusinessDays,
  businessDaysElapseAt,
  colombianDate,
  isColombianBusinessDay,
} from '../../../fiscal/business-days.ts';
import { colombianHolidays, easterSunday, isColombianHoliday } from '../../../fiscal/colombian-holidays.ts';

const dates = (year: number) => colombianHolidays(year).map((holiday) => holiday.date);

describe('Colombian holidays (Ley 51 de 1983)', () => {
  it('computes Easter Sunday', () => {
    expect(new Date(easterSunday(2024)).toISOString().slice(0, 10)).toBe('2024-03-31');
    expect(new Date(easterSunday(2025)).toISOString().slice(0, 10)).toBe('2025-04-20');
    expect(new Date(easterSunday(2026)).toISOString().slice(0, 10)).toBe('2026-04-05');
    expect(new Date(easterSunday(2027)).toISOString().slice(0, 10)).toBe('2027-03-28');
  });

  it('gives the 2025 calendar (San Pedro and Sagrado Corazón share June 30)', () => {
    expect(dates(2025)).toEqual([
      '2025-01-01',
      '2025-01-06',
      '2025-03-24',
      '2025-04-17',
      '2025-04-18',
      '2025-05-01',
      '2025-06-02',
      '2025-06-23',
      '2025-06-30',
      '2025-07-20',
      '2025-08-07',
      '2025-08-18',
      '2025-10-13',
      '2025-11-03',
      '2025-11-17',
      '2025-12-08',
      '2025-12-25',
    ]);
    expect(colombianHolidays(2025).find((holiday) => holiday.date === '2025-06-30')?.name).toBe(
      'San Pedro y San Pablo / Sagrado Corazón',
    );
  });

  it('gives the 2026 calendar (18 holidays, Emiliani ones on Mondays)', () => {
    expect(dates(2026)).toEqual([
      '2026-01-01',
      '2026-01-12',
      '2026-03-23',
      '2026-04-02',
      '2026-04-03',
      '2026-05-01',
      '2026-05-18',
      '2026-06-08',
      '2026-06-15',
      '2026-06-29',
      '2026-07-20',
      '2026-08-07',
      '2026-08-17',
      '2026-10-12',
      '2026-11-02',
      '2026-11-16',
      '2026-12-08',
      '2026-12-25',
    ]);
  });

  it('gives the 2024 calendar', () => {
    expect(dates(2024)).toEqual([
      '2024-01-01',
      '2024-01-08',
      '2024-03-25',
      '2024-03-28',
      '2024-03-29',
      '2024-05-01',
      '2024-05-13',
      '2024-06-03',
      '2024-06-10',
      '2024-07-01',
      '2024-07-20',
      '2024-08-07',
      '2024-08-19',
      '2024-10-14',
      '2024-11-04',
      '2024-11-11',
      '2024-12-08',
      '2024-12-25',
    ]);
  });

  it('refuses years the rules do not cover', () => {
    expect(() => colombianHolidays(1983)).toThrow(RangeError);
    expect(() => isColombianHoliday('1950-01-01')).toThrow(/not covered/);
  });
});

describe('Colombian business days', () => {
  it('skips weekends and holidays', () => {
    expect(isColombianBusinessDay('2026-11-13')).toBe(true); // Friday
    expect(isColombianBusinessDay('2026-11-14')).toBe(false); // Saturday
    expect(isColombianBusinessDay('2026-11-16')).toBe(false); // Independencia de Cartagena (moved Monday)
    expect(addColombianBusinessDays('2026-11-12', 3)).toBe('2026-11-18'); // Fri, (Sat, Sun, holiday Mon), Tue, Wed
    expect(addColombianBusinessDays('2026-03-31', 3)).toBe('2026-04-07'); // Holy Thursday and Good Friday skipped
  });

  it('counts a period of business days in Bogotá days, whatever the UTC date', () => {
    // 21:00 in Bogotá on Friday 13 November is already Saturday in UTC.
    const receipt = new Date('2026-11-14T02:00:00Z');
    expect(colombianDate(receipt)).toBe('2026-11-13');
    expect(businessDaysElapseAt(receipt, 3).toISOString()).toBe('2026-11-20T05:00:00.000Z'); // after Tue 17, Wed 18, Thu 19
  });
});
