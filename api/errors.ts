/**
 * The one error type of the API. Its `shape` picks one of the spec's bodies:
 * - `flat`: `{ message, code, ...extras }` (documents, events, payments, fiscal sync);
 * - `step`: `{ status, code, message }` (workflow steps);
 * - `validation`: `{ success: false, error: { code: 'VALIDATION_ERROR', message, details } }`.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly shape: 'flat' | 'step' | 'validation';
  readonly extras: Record<string, unknown>;
  readonly details: Record<string, string[]>;
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    code: string,
    message: string,
    options: {
      shape?: 'flat' | 'step' | 'validation';
      extras?: Record<string, unknown>;
      details?: Record<string, string[]>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.shape = options.shape ?? 'flat';
    this.extras = options.extras ?? {};
    this.details = options.details ?? {};
    this.headers = options.headers ?? {};
  }

  get body(): Record<string, unknown> {
    switch (this.shape) {
      case 'validation':
        return { success: false, error: { code: this.code, message: this.message, details: this.details } };
      case 'step':
        return { status: this.status, code: this.code, message: this.message };
      default:
        return { message: this.message, code: this.code, ...this.extras };
    }
  }
}

export const VALIDATION_ERROR = 'VALIDATION_ERROR';

/** PostgreSQL text and JSON cannot hold U+0000, nor JSON an unpaired surrogate (which UTF-8 cannot encode). */
export const UNSTORABLE_TEXT = 'Must be valid text: no NUL characters (U+0000) or unpaired surrogates';

export function validationError(details: Record<string, string[]>, message = 'The request is not valid'): ApiError {
  return new ApiError(400, VALIDATION_ERROR, message, { shape: 'validation', details });
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'unauthorized', 'A valid API key is required');
}

export function serviceUnavailable(dependency: string): ApiError {
  return new ApiError(
    503,
    'service_unavailable',
    `The service is temporarily unavailable (${dependency}); retry shortly`,
    {
      headers: { 'retry-after': '5' },
    },
  );
}
