import { pollIntervalsFromEnv } from '../../temporal/timings.ts';
import { ACCOUNT_TYPES } from '../../db/beneficiaries/bank-account.entity.ts';
import { BankAccountRefused, addBankAccount } from '../../db/beneficiaries/bank-account.repository.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { startBankAccountValidation } from '../../temporal/payments.ts';
import { oneOf, optional, reference, required } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError, notFound } from '../errors.ts';

/** Beneficiaries' bank accounts: operators add them (the public API only changes them). */
export const bankAccountCommands: Command[] = [
  {
    group: 'bank-accounts',
    action: 'add',
    usage:
      'bank-accounts add --beneficiary REF --bank REF --account-number N --account-type savings|checking [--recipient-name N] [--recipient-document-type T] [--recipient-document-number N]',
    options: {
      beneficiary: { type: 'string' },
      bank: { type: 'string' },
      'account-number': { type: 'string' },
      'account-type': { type: 'string' },
      'recipient-name': { type: 'string' },
      'recipient-document-type': { type: 'string' },
      'recipient-document-number': { type: 'string' },
    },
    async run(input, context) {
      const beneficiaryId = reference(input, 'beneficiary');
      const bankId = reference(input, 'bank');
      const accountNumber = required(input, 'account-number');
      const accountType = oneOf(required(input, 'account-type'), ACCOUNT_TYPES, 'account-type');
      const orm = await context.orm();
      const found = await systemEm(orm).findOne(Beneficiary, { id: beneficiaryId }, { populate: ['company'] });
      if (!found) throw notFound('beneficiary', beneficiaryId);
      const company = found.company;
      let account;
      try {
        account = await companyEm(orm, company.id).transactional(async (tx) => {
          const beneficiary = await tx.findOneOrFail(Beneficiary, { id: beneficiaryId });
          // The holder is the beneficiary unless the operator names someone else.
          return addBankAccount(tx, company.country, beneficiary, {
            bankId,
            accountNumber,
            accountType,
            recipientName: optional(input, 'recipient-name') || beneficiary.name,
            recipientDocumentType: (
              optional(input, 'recipient-document-type') || beneficiary.identifierType
            ).toUpperCase(),
            recipientDocumentNumber: optional(input, 'recipient-document-number') || beneficiary.identifierNumber,
          });
        });
      } catch (error) {
        if (error instanceof BankAccountRefused)
          throw new CliError(error.code === 'invalid_field' ? `invalid_${error.field}` : error.code, error.message);
        throw error;
      }
      await companyEm(orm, company.id).populate(account, ['bank']);
      await startBankAccountValidation(await context.temporal(), {
        companyId: company.id,
        accountId: account.id,
        attempt: account.validationAttempt,
        pollIntervalMs: pollIntervalsFromEnv().bankValidationMs,
      });
      return {
        reference: account.id,
        beneficiary: beneficiaryId,
        bank: { reference: account.bank.id, name: account.bank.name },
        account_number: account.accountNumber,
        account_type: account.accountType,
        validation_status: account.validationStatus,
      };
    },
  },
];
