import { LockMode } from '@mikro-orm/core';
import { BeneficiaryBankAccount, type ValidationStatus } from '../../db/beneficiaries/bank-account.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import type { bankValidationClient } from './validation-client.ts';

export interface ValidationState {
  validationId: string;
  status: 'processing' | 'valid' | 'invalid' | 'error';
  reason: string | null;
}

export interface BankValidationDeps {
  orm: Orm;
  validation: ReturnType<typeof bankValidationClient>;
}

interface Subject {
  companyId: string;
  accountId: string;
  attempt: number;
}

const OUTCOMES: Record<'valid' | 'invalid' | 'error', ValidationStatus> = {
  valid: 'validated',
  invalid: 'rejected',
  error: 'validation_error',
};

/** Runs `work` on the account while this attempt is still its current one; null once a later change superseded it. */
async function whileCurrent<T>(
  orm: Orm,
  subject: Subject,
  work: (account: BeneficiaryBankAccount) => T,
): Promise<T | null> {
  const em = companyEm(orm, subject.companyId);
  return em.transactional(async (tx) => {
    const account = await tx.findOne(
      BeneficiaryBankAccount,
      { id: subject.accountId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    return account && account.validationAttempt === subject.attempt ? work(account) : null;
  });
}

/**
 * Asks the validation service to validate the account as it is in this attempt (the account and attempt are the
 * idempotency key), then marks it `processing`. Null when the attempt has been superseded.
 */
export async function beginAccountValidation(
  deps: BankValidationDeps,
  subject: Subject,
): Promise<ValidationState | null> {
  const account = await companyEm(deps.orm, subject.companyId).findOne(
    BeneficiaryBankAccount,
    { id: subject.accountId },
    { populate: ['bank'] },
  );
  if (!account || account.validationAttempt !== subject.attempt) return null;
  const view = await deps.validation.requestValidation(`${account.id}/${subject.attempt}`, {
    country: account.bank.country,
    bank_code: account.bank.code,
    account_number: account.accountNumber,
    account_type: account.accountType,
    holder_name: account.accountRecipientName,
    holder_document_type: account.accountRecipientDocumentType,
    holder_document_number: account.accountRecipientDocumentNumber,
  });
  const current = await whileCurrent(deps.orm, subject, (row) => {
    if (row.validationStatus === 'pending') row.validationStatus = 'processing';
    return true;
  });
  return current ? { validationId: view.id, status: view.status, reason: view.reason ?? null } : null;
}

/** Where the service says the validation stands (one it does not know is an error); null once the attempt is superseded. */
export async function checkAccountValidation(
  deps: BankValidationDeps,
  input: Subject & { validationId: string },
): Promise<ValidationState | null> {
  const account = await companyEm(deps.orm, input.companyId).findOne(
    BeneficiaryBankAccount,
    { id: input.accountId },
    { fields: ['validationAttempt'] },
  );
  if (!account || account.validationAttempt !== input.attempt) return null;
  const view = await deps.validation.getValidation(input.validationId);
  if (!view)
    return {
      validationId: input.validationId,
      status: 'error',
      reason: 'The validation service does not know this validation',
    };
  return { validationId: view.id, status: view.status, reason: view.reason ?? null };
}

/** Writes the outcome (`validated`, `rejected` or `validation_error`) unless a later change superseded this attempt. */
export async function recordAccountValidation(
  orm: Orm,
  input: Subject & { outcome: 'valid' | 'invalid' | 'error'; reason: string | null },
): Promise<ValidationStatus | 'superseded'> {
  const written = await whileCurrent(orm, input, (account) => {
    account.validationStatus = OUTCOMES[input.outcome];
    account.validationMessage = input.outcome === 'valid' ? null : input.reason;
    return account.validationStatus;
  });
  return written ?? 'superseded';
}
