import { describe, expect, it } from 'vitest';
import {
  addDays,
  colombianSyncWindow,
  colombianWindowInstants,
  dateInZone,
  isoInZone,
  mexicanSyncWindow,
  zonedMidnight,
} from '../../../fiscal/sync-window.ts';

describe('Mexico: the last 24 hours in Mexico City time', () => {
  it('writes both ends with the -06:00 offset, to the second', () => {
    expect(mexicanSyncWindow(new Date('2026-03-01T14:15:30.987Z'))).toEqual({
      from: '2026-02-28T08:15:30-06:00',
      to: '2026-03-01T08:15:30-06:00',
    });
  });

  it('crosses midnight and the year in local time, not in UTC', () => {
    // 03:00 UTC on 1 January is still 31 December, 21:00, in Mexico City.
    expect(mexicanSyncWindow(new Date('2027-01-01T03:00:00Z'))).toEqual({
      from: '2026-12-30T21:00:00-06:00',
      to: '2026-12-31T21:00:00-06:00',
    });
  });

  it('follows the zone database: -05:00 in the summers before Mexico dropped daylight saving time (2022)', () => {
    expect(isoInZone(new Date('2021-07-01T12:00:00Z'), 'America/Mexico_City')).toBe('2021-07-01T07:00:00-05:00');
    expect(isoInZone(new Date('2023-07-01T12:00:00Z'), 'America/Mexico_City')).toBe('2023-07-01T06:00:00-06:00');
  });

  it('gives a window SAT accepts: start strictly before end, both parse to the same instants', () => {
    const now = new Date('2026-05-10T00:00:00.400Z');
    const window = mexicanSyncWindow(now);
    expect(Date.parse(window.to) - Date.parse(window.from)).toBe(24 * 3_600_000);
    expect(Date.parse(window.to)).toBe(Date.parse('2026-05-10T00:00:00Z'));
  });
});

describe('Colombia: whole Bogotá days from the day after the last sync to today', () => {
  it('looks 45 days back when the company never synchronised', () => {
    expect(colombianSyncWindow(new Date('2026-03-20T15:00:00Z'), null)).toEqual({
      from: '2026-02-03',
      to: '2026-03-20',
    });
  });

  it('starts the day after the last sync', () => {
    expect(colombianSyncWindow(new Date('2026-03-20T15:00:00Z'), new Date('2026-03-17T20:00:00Z'))).toEqual({
      from: '2026-03-18',
      to: '2026-03-20',
    });
  });

  it('is empty when the last sync was today (in Bogotá)', () => {
    expect(colombianSyncWindow(new Date('2026-03-20T23:00:00Z'), new Date('2026-03-20T06:00:00Z'))).toBeNull();
  });

  it('reads "today" and the last sync in Bogotá time, not UTC', () => {
    // 02:00 UTC on 21 March is 20 March, 21:00, in Bogotá; the last sync at 04:00 UTC on 20 March was the 19th there.
    expect(colombianSyncWindow(new Date('2026-03-21T02:00:00Z'), new Date('2026-03-20T04:00:00Z'))).toEqual({
      from: '2026-03-20',
      to: '2026-03-20',
    });
    expect(dateInZone(new Date('2026-03-21T02:00:00Z'), 'America/Bogota')).toBe('2026-03-20');
  });

  it('covers the window from 00:00 of its first day to the end of its last, in Bogotá', () => {
    expect(colombianWindowInstants({ from: '2026-03-18', to: '2026-03-20' })).toEqual({
      fromInstant: new Date('2026-03-18T05:00:00Z'),
      untilInstant: new Date('2026-03-21T05:00:00Z'),
    });
    expect(zonedMidnight('2026-03-18', 'America/Mexico_City')).toEqual(new Date('2026-03-18T06:00:00Z'));
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
  });
});
