import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { APPROVE_REFUSALS, STEP_REFUSALS, type Refusal } from '../domain/step-rules.ts';
import { ApiError } from './errors.ts';
import type { DocumentedError } from './route.ts';

/**
 * Every refusal of a command on a document's flow, and how it answers over HTTP: the routes' checks, the lifecycle's
 * refusals (its update validators and handlers), and the OpenAPI document all read this one table.
 */
const REFUSALS = {
  step_not_found: { status: 404, shape: 'step', description: 'no step of the company has this reference' },
  acting_user_not_found_in_company: {
    status: 400,
    shape: 'step',
    description: 'acting_user_email is not a member of the company',
  },
  step_not_pending: {
    status: 409,
    shape: 'step',
    description: 'the step is already resolved (or the user already acted): do not retry, query the current step again',
  },
  not_assigned: { status: 403, shape: 'step', description: 'the acting user is not an assignee of the step' },
  invalid_decision: {
    status: 422,
    shape: 'step',
    description: 'a value the step does not offer; in unrestricted tagging, a tag the company does not have',
  },
  unsupported_step: {
    status: 422,
    shape: 'step',
    description: 'the step is not decided through this API (actionable false)',
  },
  document_not_found: { status: 404, shape: 'flat', description: 'no document of the company has this reference' },
} as const satisfies Record<string, { status: number; shape: 'flat' | 'step'; description: string }>;

export type RefusalCode = keyof typeof REFUSALS;

/** The refusals a step decision may meet, and an approval through the lifecycle. */
export const STEP_DECISION_REFUSALS = ['step_not_found', 'acting_user_not_found_in_company', ...STEP_REFUSALS] as const;
export const APPROVAL_REFUSALS = APPROVE_REFUSALS;

/** A refusal as the API answers it. */
export function refusalError(refusal: Refusal<RefusalCode>): ApiError {
  const { status, shape } = REFUSALS[refusal.code];
  return new ApiError(status, refusal.code, refusal.message, { shape });
}

/** The refusals a route documents in the OpenAPI document. */
export function documentedRefusals(codes: readonly RefusalCode[]): DocumentedError[] {
  return codes.map((code) => ({ code, ...REFUSALS[code] }));
}

const isRefusalCode = (code: string | undefined): code is RefusalCode => code !== undefined && code in REFUSALS;

/**
 * Runs a command through the document's workflow and answers its refusals as the table says. A flow no longer running
 * has no pending step to decide.
 */
export async function asWorkflowCommand<T>(command: () => Promise<T>): Promise<T> {
  try {
    return await command();
  } catch (error) {
    const cause = error instanceof WorkflowUpdateFailedError ? error.cause : undefined;
    const code = cause instanceof ApplicationFailure ? (cause.type ?? undefined) : undefined;
    if (isRefusalCode(code)) throw refusalError({ code, message: cause!.message });
    if (error instanceof WorkflowNotFoundError)
      throw refusalError({ code: 'step_not_pending', message: 'The flow of this document is no longer running' });
    throw error;
  }
}
