import { describe, expect, it } from 'vitest';
import { ancestryOf, cyclesThrough, unloadedAncestors, type ParentOf } from '../../../db/erp/hierarchy.ts';

const links =
  (entries: Record<string, string | null>): ParentOf =>
  (id) =>
    entries[id];

describe('cyclesThrough', () => {
  it('finds self-parents and longer cycles, each from the record that is on it', () => {
    const parentOf = links({ A: 'A', B: 'C', C: 'D', D: 'B', E: null });
    const cycles = cyclesThrough(['A', 'B', 'C', 'E'], parentOf);
    expect(cycles.get('A')).toEqual(['A', 'A']);
    expect(cycles.get('B')).toEqual(['B', 'C', 'D', 'B']);
    expect(cycles.get('C')).toEqual(['C', 'D', 'B', 'C']);
    expect(cycles.has('E')).toBe(false);
  });

  it('does not blame a record that only leads into a cycle above it', () => {
    const cycles = cyclesThrough(['X'], links({ X: 'A', A: 'B', B: 'A' }));
    expect(cycles.size).toBe(0);
  });

  it('stops at a record whose link is not loaded or that does not exist', () => {
    expect(cyclesThrough(['A'], links({ A: 'B' })).size).toBe(0);
  });
});

describe('unloadedAncestors', () => {
  it('names the records reached going up whose links are not known yet, once each', () => {
    const parentOf = links({ A: 'B', C: 'B', D: null, E: 'E' });
    expect([...unloadedAncestors(['A', 'C', 'D', 'E'], parentOf)]).toEqual(['B']);
  });
});

describe('ancestryOf', () => {
  it('gives the path from the root and the first missing ancestor', () => {
    const records = new Map<string, string | null>([
      ['ROOT', null],
      ['MID', 'ROOT'],
      ['LEAF', 'MID'],
      ['ORPHAN', 'GONE'],
    ]);
    expect(ancestryOf('LEAF', records)).toEqual({ path: ['ROOT', 'MID', 'LEAF'], missingAncestor: null });
    expect(ancestryOf('ROOT', records)).toEqual({ path: ['ROOT'], missingAncestor: null });
    expect(ancestryOf('ORPHAN', records)).toEqual({ path: ['GONE', 'ORPHAN'], missingAncestor: 'GONE' });
  });

  it('does not loop on a cycle that somehow got stored', () => {
    expect(
      ancestryOf(
        'A',
        new Map([
          ['A', 'B'],
          ['B', 'A'],
        ]),
      ).path,
    ).toEqual(['B', 'A']);
  });
});
