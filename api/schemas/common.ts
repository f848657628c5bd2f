import { z } from 'zod';

export const Reference = z.uuid({ message: 'Must be a UUID' }).describe('UUID reference');

export const FlatError = z
  .object({ message: z.string(), code: z.string() })
  .catchall(z.unknown())
  .meta({ id: 'FlatError', description: 'Flat error body: `code` is stable, `message` is for humans. Some errors add fields (e.g. `retry_after_seconds`).' });

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
  return z
    .string()
    .transform((value) => value.split(',').map((part) => part.trim()).filter(Boolean))
    .pipe(z.array(item));
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

export const CURRENCY_VALUES = ['USD', 'COP', 'MXN', 'EUR'] as const;
export const Currency = z.enum(CURRENCY_VALUES).meta({ id: 'Currency' });
