/** A parsed JSON value that is an object (not null, not an array): what an outside answer's fields are read from. */
export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
