import { describe, expect, it } from 'vitest';
import { UUID_PATTERN, uuidv5, uuidv7 } from '../../db/ids.ts';

describe('uuidv7', () => {
  it('is a version-7 RFC 9562 UUID that sorts by creation time', () => {
    const earlier = uuidv7(Date.UTC(2026, 0, 1));
    const later = uuidv7(Date.UTC(2026, 0, 2));
    expect(earlier).toMatch(UUID_PATTERN);
    expect(earlier[14]).toBe('7');
    expect('89ab').toContain(earlier[19]);
    expect(earlier < later).toBe(true);
    expect(uuidv7()).not.toBe(uuidv7());
  });
});

describe('uuidv5', () => {
  it('gives the same reference for the same name and a different one otherwise', () => {
    expect(uuidv5('bank:COL:1007')).toBe(uuidv5('bank:COL:1007'));
    expect(uuidv5('bank:COL:1007')).not.toBe(uuidv5('bank:COL:1001'));
    expect(uuidv5('bank:COL:1007')[14]).toBe('5');
  });

  it('matches the RFC 9562 example for the DNS namespace', () => {
    expect(uuidv5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });
});
