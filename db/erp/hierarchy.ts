/**
 * Parent links of a hierarchical catalog, by external_id. `parentOf` answers the parent (`null` for a root or a
 * record that does not exist yet) or `undefined` when that record's link has not been loaded.
 */
export type ParentOf = (externalId: string) => string | null | undefined;

/** The records reached walking up from `starts` whose links are not loaded yet: what to load next. */
export function unloadedAncestors(starts: Iterable<string>, parentOf: ParentOf): Set<string> {
  const unloaded = new Set<string>();
  const settled = new Set<string>();
  for (const start of starts) {
    const seen = new Set<string>();
    for (let current: string | null = start; current !== null && !seen.has(current) && !settled.has(current);) {
      seen.add(current);
      const parent = parentOf(current);
      if (parent === undefined) {
        unloaded.add(current);
        break;
      }
      current = parent;
    }
    for (const id of seen) settled.add(id);
  }
  return unloaded;
}

/** For each start that lies on a cycle, the cycle as a path from it back to it (`A → B → A`, or `A → A`). */
export function cyclesThrough(starts: Iterable<string>, parentOf: ParentOf): Map<string, string[]> {
  const cycles = new Map<string, string[]>();
  for (const start of starts) {
    const path = [start];
    const seen = new Set(path);
    for (let parent = parentOf(start); typeof parent === 'string'; parent = parentOf(parent)) {
      path.push(parent);
      if (parent === start) {
        cycles.set(start, path);
        break;
      }
      // A loop above the start that does not come back to it is not this record's to answer for.
      if (seen.has(parent)) break;
      seen.add(parent);
    }
  }
  return cycles;
}

/** Where a record sits: external_ids from its topmost known ancestor down to itself, and the first ancestor not synced yet. */
export interface Ancestry {
  path: string[];
  missingAncestor: string | null;
}

/** Walks up from a stored record through `records` (external_id → parent link of every record loaded). */
export function ancestryOf(externalId: string, records: ReadonlyMap<string, string | null>): Ancestry {
  const path = [externalId];
  for (let parent = records.get(externalId) ?? null; parent !== null; parent = records.get(parent) ?? null) {
    if (path.includes(parent)) break;
    path.unshift(parent);
    if (!records.has(parent)) return { path, missingAncestor: parent };
  }
  return { path, missingAncestor: null };
}
