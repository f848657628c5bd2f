import { WorkflowFailedError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { isObject } from '../platform/json.ts';
import { Refusal } from '../platform/refusal.ts';

/**
 * The refusal a failed update or workflow carries: the ApplicationFailure its handler or one of its activities threw,
 * whose type is the refusal's code (activities/failures.ts). Undefined for any other error.
 */
export function refusalOf(error: unknown): Refusal | undefined {
  let cause = error instanceof WorkflowUpdateFailedError || error instanceof WorkflowFailedError ? error.cause : null;
  if (cause instanceof ActivityFailure) cause = cause.cause;
  if (!(cause instanceof ApplicationFailure) || !cause.type) return undefined;
  const [details] = cause.details ?? [];
  return new Refusal(cause.type, cause.message, {
    details: isObject(details) ? details : {},
    retryable: !cause.nonRetryable,
  });
}

/**
 * Runs a command through a workflow (an update, or waiting for its result) for the API or the CLI, and throws what
 * refused it as a Refusal; a workflow no longer running is refused as `ended` says, when given.
 */
export async function throughWorkflow<T>(command: () => Promise<T>, ended?: () => Refusal): Promise<T> {
  try {
    return await command();
  } catch (error) {
    const refusal = refusalOf(error);
    if (refusal) throw refusal;
    if (ended && error instanceof WorkflowNotFoundError) throw ended();
    throw error;
  }
}
