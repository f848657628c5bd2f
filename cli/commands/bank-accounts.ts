import { pollIntervalsFromEnv } from '../../temporal/timings.ts';
import { ACCOUNT_TYPES } from '../../db/beneficiaries/bank-account.entity.ts';
import { BankAccountRefused } from '../../db/beneficiaries/bank-account.repository.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { systemEm } from '../../db/orm.ts';
import { addBeneficiaryBankAccount, type ValidationSubject } from '../../services/beneficiaries/bank-accounts.ts';
import { startBankAccountValidation } from '../../temporal/payments.ts';
import { oneOf, optional, reference, required } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError, notFound } from '../errors.ts';

/** Beneficiaries' bank accounts: operators add them as integrators do through the API (POST bank-accounts). */
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
      const pollIntervalMs = pollIntervalsFromEnv().bankValidationMs;
      const startValidation = async (subject: ValidationSubject) =>
        startBankAccountValidation(await context.temporal(), { ...subject, pollIntervalMs });
      let account;
      try {
        // The holder is the beneficiary unless the operator names someone else.
        account = await addBeneficiaryBankAccount({ orm, startValidation }, company, {
          accountId: null,
          beneficiaryId,
          bankId,
          accountNumber,
          accountType,
          recipientName: optional(input, 'recipient-name'),
          recipientDocumentType: optional(input, 'recipient-document-type'),
          recipientDocumentNumber: optional(input, 'recipient-document-number'),
        });
      } catch (error) {
        if (error instanceof BankAccountRefused)
          // A bank of another country is one the company cannot use, as an unknown one.
          throw new CliError(
            error.code === 'bank_account_exists' ? error.code : `invalid_${error.field}`,
            error.message,
          );
        throw error;
      }
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
