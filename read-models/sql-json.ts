// Pieces of the SQL with which PostgreSQL renders a response's JSON (documents, payments): each says in one place how
// a value of ours is written, so every renderer writes it the same way.

/** Minor units as the decimal amount (a JSON number), like centsToAmount: exact, never float division. */
export const money = (cents: string) => `round((${cents})::numeric / 100, 2)`;
/** A timestamptz as Date.toISOString() writes it. */
export { isoTimestamp as timestamp } from '../db/prepared.ts';
export const date = (column: string) => `to_char(${column}, 'YYYY-MM-DD')`;
/** json_build_object over an object whose keys are the JSON's and whose values are SQL expressions, in that order. */
export const object = (fields: Record<string, string>) =>
  `json_build_object(${Object.entries(fields)
    .map(([key, value]) => `'${key}', ${value}`)
    .join(', ')})`;
/** The rows of `from` as a JSON array in `order`, never null. */
export const array = (element: string, from: string, order: string) =>
  `coalesce((select json_agg(${element} order by ${order}) ${from}), '[]')`;
/** A JSON column; a stored JSON null reads as null, as the ORM reads it. */
export const json = (expression: string) => `nullif(${expression}, 'null'::jsonb)`;
/** The tenant condition: the renderers' SQL bypasses the ORM's tenant filter, so every table it reads carries it. */
export const owned = (alias: string) => `${alias}.company_id = :companyId`;
