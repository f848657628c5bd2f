import { UniqueConstraintViolationException } from '@mikro-orm/core';
import {
  BankAccountRefused,
  changeBankAccount,
  lockBankAccount,
} from '../../db/beneficiaries/bank-account.repository.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { findBeneficiaryPage } from '../../db/beneficiaries/beneficiary.repository.ts';
import { startBankAccountValidation } from '../../temporal/payments.ts';
import { ApiError, notFound, validationError } from '../errors.ts';
import { presentBankAccount } from '../presenters/bank-account.ts';
import { presentBeneficiary } from '../presenters/beneficiary.ts';
import { defineRoute } from '../route.ts';
import {
  BankAccountBody,
  BankAccountParams,
  BeneficiaryListQuery,
  UpdateBankAccountRequest,
} from '../schemas/beneficiaries.ts';
import { listOf, page } from '../schemas/common.ts';
import { BeneficiaryBody } from '../../read-models/document-schema.ts';

const BENEFICIARY_NOT_FOUND = {
  status: 404,
  code: 'beneficiary_not_found',
  description: 'no beneficiary of the company has this reference',
};
const BANK_ACCOUNT_NOT_FOUND = {
  status: 404,
  code: 'bank_account_not_found',
  description: 'the beneficiary has no bank account with this reference (accounts are added by operators)',
};
const BANK_ACCOUNT_EXISTS = {
  status: 409,
  code: 'bank_account_exists',
  description: 'the beneficiary already has another account with this bank and number',
};

const duplicate = (message: string) => new ApiError(BANK_ACCOUNT_EXISTS.status, BANK_ACCOUNT_EXISTS.code, message);

/** Beneficiaries and their bank accounts. */
export const beneficiaryRoutes = [
  defineRoute({
    method: 'get',
    path: '/beneficiaries',
    operationId: 'listBeneficiaries',
    summary: 'List beneficiaries',
    description:
      'By name, with their contacts and bank accounts; deleted beneficiaries are left out. Beneficiaries are not created or read one by one through the API: suppliers come from the documents received (matched by their tax identifier), and bank accounts are added by operators.',
    tags: ['Beneficiaries'],
    auth: 'api-key',
    scope: 'beneficiaries:read',
    query: BeneficiaryListQuery,
    response: listOf(BeneficiaryBody, 'BeneficiaryList'),
    handler: async ({ em, query }) => {
      const { beneficiaries, total } = await findBeneficiaryPage(
        em,
        { search: query.search },
        { number: query.page, size: query.page_size },
      );
      return page(beneficiaries.map(presentBeneficiary), total, query.page, query.page_size);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/beneficiaries/:reference/bank-accounts/:bank_account_reference',
    operationId: 'updateBeneficiaryBankAccount',
    summary: "Change a beneficiary's bank account",
    description:
      "Every field is optional. The bank must be of the company's country; the account number must follow its rules (Colombia: 6 to 20 digits, Nequi and Daviplata the 10-digit mobile number; Mexico: an 18-digit CLABE of the chosen bank with a valid check digit). Any change puts `validation_status` back to `pending` and starts a validation (`processing`, then `validated`, `rejected` or `validation_error`). The account must exist: this endpoint does not create accounts. Not covered by `beneficiaries:read`: only keys without scopes may change accounts.",
    tags: ['Beneficiaries'],
    auth: 'api-key',
    params: BankAccountParams,
    body: UpdateBankAccountRequest,
    response: BankAccountBody,
    errors: [BENEFICIARY_NOT_FOUND, BANK_ACCOUNT_NOT_FOUND, BANK_ACCOUNT_EXISTS],
    handler: async ({ em, params, body, caller, deps }) => {
      let written;
      try {
        written = await em.transactional(async (tx) => {
          const beneficiary = await tx.findOne(Beneficiary, { id: params.reference.toLowerCase() });
          if (!beneficiary) throw notFound(BENEFICIARY_NOT_FOUND.code, 'Beneficiary not found');
          const account = await lockBankAccount(tx, beneficiary, params.bank_account_reference);
          if (!account) throw notFound(BANK_ACCOUNT_NOT_FOUND.code, 'Bank account not found');
          const changed = await changeBankAccount(tx, caller.company.country, account, {
            bankId: body.bank_reference,
            accountNumber: body.account_number,
            accountType: body.account_type,
            recipientName: body.account_recipient_name,
            recipientDocumentNumber: body.account_recipient_document_number,
            recipientDocumentType: body.account_recipient_document_type,
          });
          // An account whose validation never started gets its first attempt, so repeating a PUT is a way to start it.
          if (!changed && account.validationStatus === 'pending' && account.validationAttempt === 0)
            account.validationAttempt = 1;
          return account;
        });
      } catch (error) {
        if (error instanceof BankAccountRefused)
          throw error.code === 'invalid_field'
            ? validationError({ [error.field]: [error.message] })
            : duplicate(error.message);
        if (error instanceof UniqueConstraintViolationException)
          throw duplicate('The beneficiary already has another account with this bank and number');
        throw error;
      }
      // Starting an attempt twice is a no-op, so a pending account's validation may be started again safely.
      if (written.validationStatus === 'pending') {
        await startBankAccountValidation(deps.temporal, {
          companyId: caller.company.id,
          accountId: written.id,
          attempt: written.validationAttempt,
          pollIntervalMs: deps.config.bankValidationPollIntervalMs,
        });
      }
      return presentBankAccount(written);
    },
  }),
];
