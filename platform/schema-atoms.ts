import { z } from 'zod';

// The zod building blocks that request and response schemas alike are made of.

export const Reference = z.uuid({ message: 'Must be a UUID' }).describe('UUID reference');
/** What `Reference` accepts, for parameters that check it in their handler (to answer the spec's own error). */
export const UUID_PATTERN = (z.toJSONSchema(Reference) as { pattern: string }).pattern;

/**
 * A string read without its surrounding whitespace. Marked for the published schema, where a minimum length then
 * means "not blank" (openapi.ts), as JSON Schema has no trimming.
 */
export const TRIMMED = 'x-trimmed';
export const trimmedString = (params?: { message: string }) =>
  z
    .string(params)
    .trim()
    .meta({ [TRIMMED]: true });

export const CURRENCY_VALUES = ['USD', 'COP', 'MXN', 'EUR'] as const;
export const Currency = z.enum(CURRENCY_VALUES).meta({ id: 'Currency' });
