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

  it('counts up within one millisecond, so ids created together sort in creation order', () => {
    const now = Date.UTC(2026, 5, 1);
    const ids = Array.from({ length: 50 }, () => uuidv7(now));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(50);
    for (const id of ids) expect(id).toMatch(UUID_PATTERN);
    expect(ids.every((id) => id[14] === '7' && '89ab'.includes(id[19]!))).toBe(true);
  });
});

describe('uuidv5', () => {
  it('gives the same reference for the same name and a different one otherwise', () => {
    expect(uuidv5('bank:COL:1007')).toBe(uuidv5('bank:COL:1007'));
    expect(uuidv5('bank:COL:1007')).not.toBe(uuidv5('bank:COL:1001'));
    expect(uuidv5('bank:COL:1007')[14]).toBe('5');
  });

  it('matches the RFC 9562 example for the DNS namespace', () => {
    expect(uuidv5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe(
      '2ed6657d-e927-568b-95e1-2665a8aea6a2',
    );
  });
});
