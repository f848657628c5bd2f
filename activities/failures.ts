import { ApplicationFailure } from '@temporalio/common';
import { Refusal } from '../platform/refusal.ts';

/**
 * A refusal as its workflow meets it: an ApplicationFailure whose type is the refusal's code, final unless the refusal
 * may pass later, its details as the failure's one detail. Any other error is retried as Temporal retries it.
 */
export function asFailure(error: unknown): unknown {
  if (!(error instanceof Refusal)) return error;
  return ApplicationFailure.create({
    type: error.code,
    message: error.message,
    nonRetryable: !error.retryable,
    details: Object.keys(error.details).length > 0 ? [error.details] : undefined,
    cause: error.cause instanceof Error ? error.cause : undefined,
  });
}

type Activity = (...args: any[]) => Promise<unknown>;

/** Every activity of `activities`, its refusals handed to the workflow as failures. */
export function refusalsAsFailures<T extends Record<string, Activity>>(activities: T): T {
  const wrapped: Record<string, Activity> = {};
  for (const [name, activity] of Object.entries(activities))
    wrapped[name] = async (...args) => {
      try {
        return await activity(...args);
      } catch (error) {
        throw asFailure(error);
      }
    };
  return wrapped as T;
}
