import type { Middleware } from 'koa';
import { ApiError, serviceUnavailable, validationError } from '../errors.ts';
import { answerOf } from '../refusals.ts';

/** Renders every failure in one of the spec's three shapes; nothing else reaches the client. */
export function errorHandler(): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (thrown) {
      const error = toApiError(thrown);
      if (error.status >= 500) ctx.state.log.error({ err: thrown }, 'request failed');
      ctx.status = error.status;
      ctx.set(error.headers);
      ctx.body = error.body;
    }
  };
}

function toApiError(thrown: unknown): ApiError {
  const answer = answerOf(thrown);
  if (answer instanceof ApiError) return answer;
  const error = thrown as {
    status?: number;
    statusCode?: number;
    type?: string;
    expose?: boolean;
    message?: string;
    code?: string;
  };
  const status = error.status ?? error.statusCode;
  // Errors raised by the body parser and Koa itself carry an HTTP status.
  if (status === 413 || error.type === 'entity.too.large')
    return new ApiError(413, 'payload_too_large', 'The request body is larger than allowed');
  if (error.type === 'entity.parse.failed' || (status === 400 && thrown instanceof SyntaxError))
    return validationError({ body: ['Malformed JSON'] }, 'The request body is not valid JSON');
  if (status === 415) return new ApiError(415, 'unsupported_media_type', 'Send the body as application/json');
  if (status && status >= 400 && status < 500 && error.expose)
    return new ApiError(status, 'bad_request', error.message ?? 'Bad request');
  const unavailable = unavailableDependency(thrown);
  if (unavailable) return serviceUnavailable(unavailable);
  return new ApiError(500, 'internal_error', 'An unexpected error occurred');
}

const DATABASE_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  '57P01',
  '57P03',
  '08006',
  '08001',
  '08003',
  // too_many_connections: every connection slot is taken, for now.
  '53300',
]);

const TEMPORAL_UNAVAILABLE = new Set([4, 8, 14]);

/** Names the dependency behind an error that means "down", not "wrong". */
export function unavailableDependency(thrown: unknown): 'database' | 'temporal' | null {
  let current: unknown = thrown;
  for (let depth = 0; current && depth < 5; depth++) {
    const error = current as { name?: string; code?: string | number; message?: string; cause?: unknown };
    if (error.name === 'ConnectionException' || (typeof error.code === 'string' && DATABASE_ERRORS.has(error.code)))
      return 'database';
    if (
      typeof error.message === 'string' &&
      /timeout exceeded when trying to connect|Connection terminated|connection error and is not queryable/i.test(
        error.message,
      )
    )
      return 'database';
    // gRPC UNAVAILABLE (14), DEADLINE_EXCEEDED (4) and RESOURCE_EXHAUSTED (8, the server's rate limits) from the
    // Temporal client.
    if (error.name === 'ServiceError' || error.name === 'ConnectionError') return 'temporal';
    // A workflow command that no worker completed before its deadline (workers down or restarting).
    if (error.name === 'WorkflowUpdateRPCTimeoutOrCancelledError') return 'temporal';
    if (TEMPORAL_UNAVAILABLE.has(error.code as number) && error.name !== 'DriverException') return 'temporal';
    current = error.cause;
  }
  return null;
}
