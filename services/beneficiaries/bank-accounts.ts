// A beneficiary's new bank account, whoever adds it (an integrator through the API, an operator through the CLI):
// checked and written in `pending`, then its validation started, which wakes the beneficiary's waiting payments.

import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { BeneficiaryBankAccount, type AccountType } from '../../db/beneficiaries/bank-account.entity.ts';
import { addBankAccount, BankAccountRefused } from '../../db/beneficiaries/bank-account.repository.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Country } from '../../db/companies/company.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { Refusal } from '../../platform/refusal.ts';

/** The beneficiary named cannot take an account: the company has none with this reference, or it was deleted. */
export class BeneficiaryUnavailable extends Refusal<'beneficiary_not_found' | 'beneficiary_deleted'> {}

/** One validation attempt of an account, as `bank-account-validation/<account>/<attempt>` runs it. */
export interface ValidationSubject {
  companyId: string;
  accountId: string;
  attempt: number;
}

export interface BankAccountDeps {
  orm: Orm;
  /** Starts an attempt's validation; starting one already started is a no-op. */
  startValidation(subject: ValidationSubject): Promise<void>;
}

export interface NewBankAccount {
  /** Given so that a retried request finds the account it wrote (null: a new one). */
  accountId: string | null;
  beneficiaryId: string;
  bankId: string;
  accountNumber: string;
  accountType: AccountType;
  /** The holder; the beneficiary when not given. */
  recipientName?: string;
  recipientDocumentType?: string;
  recipientDocumentNumber?: string;
}

/**
 * Adds a bank account to a beneficiary of the company: the bank must be an active bank of the company's country, the
 * number must follow its rules, and the beneficiary must not already have it (`addBankAccount`). Written in `pending`
 * under attempt 1, then its validation is started; once the account is validated, the beneficiary's payments waiting
 * for one go. Given an `accountId` already written (a retry whose answer was lost), it writes nothing and starts the
 * validation of an account still pending, which the lost attempt may not have started.
 */
export async function addBeneficiaryBankAccount(
  deps: BankAccountDeps,
  company: { id: string; country: Country },
  input: NewBankAccount,
): Promise<BeneficiaryBankAccount> {
  const em = companyEm(deps.orm, company.id);
  const beneficiaryId = input.beneficiaryId.toLowerCase();
  let account = input.accountId
    ? await em.findOne(
        BeneficiaryBankAccount,
        { id: input.accountId, beneficiary: beneficiaryId },
        { populate: ['bank'] },
      )
    : null;
  if (!account) {
    account = await em
      .transactional(async (tx) => {
        const beneficiary = await tx.findOne(Beneficiary, { id: beneficiaryId });
        if (!beneficiary)
          throw new BeneficiaryUnavailable('beneficiary_not_found', 'No beneficiary of the company has this reference');
        if (beneficiary.isDeleted)
          throw new BeneficiaryUnavailable('beneficiary_deleted', 'The beneficiary has been deleted');
        return addBankAccount(tx, company.country, beneficiary, {
          ...(input.accountId ? { id: input.accountId } : {}),
          bankId: input.bankId,
          accountNumber: input.accountNumber,
          accountType: input.accountType,
          recipientName: input.recipientName,
          recipientDocumentType: input.recipientDocumentType,
          recipientDocumentNumber: input.recipientDocumentNumber,
        });
      })
      .catch((error: unknown) => {
        // Another request added the same account meanwhile.
        if (error instanceof UniqueConstraintViolationException)
          throw new BankAccountRefused(
            'bank_account_exists',
            'account_number',
            'The beneficiary already has this account at this bank',
          );
        throw error;
      });
    await em.populate(account, ['bank']);
  }
  if (account.validationStatus === 'pending')
    await deps.startValidation({ companyId: company.id, accountId: account.id, attempt: account.validationAttempt });
  return account;
}
