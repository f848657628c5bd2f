import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { STEP_ERRORS, type StepErrorCode } from '../workflows/document.ts';
import { ApiError } from './errors.ts';

const STATUS: Record<StepErrorCode, number> = {
  step_not_pending: 409,
  not_assigned: 403,
  invalid_decision: 422,
  unsupported_step: 422,
};

export function stepError(code: string, status: number, message: string): ApiError {
  return new ApiError(status, code, message, { shape: 'step' });
}

/** Runs a workflow command and turns the workflow's refusals into the spec's step errors. */
export async function asStepCommand<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && (STEP_ERRORS as readonly string[]).includes(cause.type ?? '')) {
      throw stepError(cause.type!, STATUS[cause.type as StepErrorCode], cause.message);
    }
    if (error instanceof WorkflowNotFoundError)
      throw stepError('step_not_pending', 409, 'The flow of this document is no longer running');
    throw error;
  }
}
