/** A trigram (pg_trgm) index on a text column: it serves `ILIKE '%text%'` searches, which a b-tree index cannot. */
export function trigramIndex(table: string, column: string): { name: string; expression: string } {
  const name = `${table}_${column}_trgm_index`;
  return { name, expression: `create index "${name}" on "${table}" using gin ("${column}" gin_trgm_ops)` };
}
