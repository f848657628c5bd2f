/**
 * Something refused on purpose, by the product or by an outside system, with a stable `code` its callers answer with
 * and `details` they may read. `retryable`: the same request may pass later (an outside system busy or down).
 * The API answers it from one table (api/refusals.ts); an activity hands it to its workflow as an ApplicationFailure
 * whose type is the code (activities/failures.ts), and temporal/refusals.ts turns that back into a Refusal.
 */
export class Refusal<Code extends string = string> extends Error {
  readonly code: Code;
  readonly details: Readonly<Record<string, unknown>>;
  readonly retryable: boolean;

  constructor(
    code: Code,
    message: string,
    options: { details?: Record<string, unknown>; retryable?: boolean; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
    this.retryable = options.retryable ?? false;
  }

  /** A refusal that may pass later: the outside system was busy, down or slow. */
  static retryable(code: string, message: string, details?: Record<string, unknown>): Refusal {
    return new Refusal(code, message, { details, retryable: true });
  }
}
