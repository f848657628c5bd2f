import { z } from 'zod';

export const FlatError = z.object({ message: z.string(), code: z.string() }).catchall(z.unknown()).meta({
  id: 'FlatError',
  description:
    'Flat error body: `code` is stable, `message` is for humans. Some errors add fields (e.g. `retry_after_seconds`).',
});

export const StepError = z
  .object({ status: z.number().int(), code: z.string(), message: z.string() })
  .meta({ id: 'StepError', description: 'Error body of the workflow-step endpoints.' });

export const ValidationError = z
  .object({
    success: z.literal(false),
    error: z.object({
      code: z.literal('VALIDATION_ERROR'),
      message: z.string(),
      details: z.record(z.string(), z.array(z.string())).describe('Field path mapped to its messages'),
    }),
  })
  .meta({ id: 'ValidationError', description: 'Request validation failed (HTTP 400).' });

/** `true`/`false` in a query string. */
export const QueryBoolean = z.enum(['true', 'false']).transform((value) => value === 'true');

/** Comma-separated values in a query string, trimmed, empties dropped. */
export function commaSeparated<T extends z.ZodType<unknown, string>>(item: T) {
  const one = itemPattern(item);
  return z
    .string()
    .meta(one ? { pattern: `^\\s*(?:${one})?\\s*(?:,\\s*(?:${one})?\\s*)*$` } : {})
    .transform((value) =>
      value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));
}

/** One item of a comma-separated list as a regular expression, for the published schema (enums and patterns only). */
function itemPattern(item: z.ZodType): string | null {
  const json = z.toJSONSchema(item) as { enum?: string[]; pattern?: string };
  if (json.enum) return json.enum.map((option) => option.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  return json.pattern ? `(?:${json.pattern.replace(/^\^/, '').replace(/\$$/, '')})` : null;
}

export const PageQuery = {
  page: z.coerce.number().int().min(1).default(1).describe('Page number, 1-indexed'),
  page_size: z.coerce.number().int().min(1).max(100).default(20).describe('Items per page (1 to 100)'),
};

/** The list envelope every paginated endpoint answers with. */
export function listOf<T extends z.ZodType>(item: T, id: string) {
  return z
    .strictObject({
      items: z.array(item),
      total: z.number().int().min(0),
      current_page: z.number().int().min(1),
      page_size: z.number().int().min(1),
      total_pages: z.number().int().min(0),
    })
    .meta({ id });
}

export function page<T>(items: T[], total: number, pageNumber: number, pageSize: number) {
  return { items, total, current_page: pageNumber, page_size: pageSize, total_pages: Math.ceil(total / pageSize) };
}

const unstorable = (text: string) => text.includes('\u0000') || !text.isWellFormed();

/**
 * Where a value holds text PostgreSQL cannot store (U+0000, or an unpaired surrogate, in a string or a key): such
 * input is refused as bad, not left to fail deep in a query. Only plain objects and arrays are walked.
 */
export function unstorableTextPaths(value: unknown): (string | number)[][] {
  // One path, grown and shrunk as the walk goes, copied only where text is refused: a 10 MB batch holds some 400,000 keys and values.
  const found: (string | number)[][] = [];
  const path: (string | number)[] = [];
  const walk = (node: unknown) => {
    if (typeof node === 'string') {
      if (unstorable(node)) found.push([...path]);
    } else if (Array.isArray(node)) {
      node.forEach((item, index) => {
        path.push(index);
        walk(item);
        path.pop();
      });
    } else if (node !== null && typeof node === 'object' && Object.getPrototypeOf(node) === Object.prototype) {
      for (const [key, item] of Object.entries(node)) {
        path.push(key);
        if (unstorable(key)) found.push([...path]);
        else walk(item);
        path.pop();
      }
    }
  };
  walk(value);
  return found;
}
