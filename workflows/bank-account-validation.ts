import {
  ActivityFailure,
  continueAsNew,
  getExternalWorkflowHandle,
  proxyActivities,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { ValidationStatus } from '../db/beneficiaries/bank-account.entity.ts';
import type { ValidationState } from '../services/beneficiaries/validations.ts';
import { workflowIds } from './ids.ts';
import { accountChangedSignal } from './payment.ts';

export interface BankAccountValidationInput {
  companyId: string;
  accountId: string;
  /** The account's validation attempt this run validates; a later change starts attempt n + 1 and supersedes it. */
  attempt: number;
  /** The wait between two checks with the validation service. */
  pollIntervalMs: number;
  /** Set on a run continued as new: the service already holds this validation. */
  validationId?: string;
}

/** Where a validation stands with the bank-validation service. */
// A service that stays unreachable is itself an outcome (`validation_error`), so the attempts are bounded.
const { beginAccountValidation, checkAccountValidation } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds', maximumAttempts: 8 },
});
const { recordAccountValidation, pendingPaymentsOfAccount } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Validates one version of a beneficiary's bank account, as workflow `bank-account-validation/<accountRef>/<n>`:
 * `pending` → `processing` once the service has the request, then `validated`, `rejected` or `validation_error`.
 * A run whose attempt has been superseded by a later change writes nothing. Once written, the beneficiary's pending
 * payments are told: one waiting for a validated account goes, one still waiting says why anew.
 */
export async function bankAccountValidation(
  input: BankAccountValidationInput,
): Promise<ValidationStatus | 'superseded'> {
  const subject = { companyId: input.companyId, accountId: input.accountId, attempt: input.attempt };
  let state: ValidationState;
  try {
    const begun = input.validationId
      ? { validationId: input.validationId, status: 'processing' as const, reason: null }
      : await beginAccountValidation(subject);
    if (begun === null) return 'superseded';
    state = begun;
    while (state.status === 'processing') {
      if (workflowInfo().continueAsNewSuggested)
        await continueAsNew<typeof bankAccountValidation>({ ...input, validationId: state.validationId });
      await sleep(input.pollIntervalMs);
      const checked: ValidationState | null = await checkAccountValidation({
        ...subject,
        validationId: state.validationId,
      });
      // A later change started its own attempt: this one stops waiting.
      if (checked === null) return 'superseded';
      state = checked;
    }
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    state = {
      validationId: '',
      status: 'error',
      reason: `The validation service could not be reached: ${error.cause?.message ?? error.message}`,
    };
  }
  const status = await recordAccountValidation({
    ...subject,
    outcome: state.status === 'processing' ? 'error' : state.status,
    reason: state.reason,
  });
  if (status !== 'superseded') await wakePayments(input);
  return status;
}

/** Signals each pending payment of the account's beneficiary; one whose workflow has ended meanwhile needs nothing. */
async function wakePayments(input: BankAccountValidationInput): Promise<void> {
  const payments = await pendingPaymentsOfAccount({ companyId: input.companyId, accountId: input.accountId });
  await Promise.all(
    payments.map((paymentId) =>
      getExternalWorkflowHandle(workflowIds.payment(paymentId))
        .signal(accountChangedSignal)
        .catch(() => undefined),
    ),
  );
}
