import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Context } from 'koa';
import {
  BankAccountRefused,
  changeBankAccount,
  lockBankAccount,
} from '../../db/beneficiaries/bank-account.repository.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import {
  createBeneficiary,
  findBeneficiary,
  findBeneficiaryPage,
} from '../../db/beneficiaries/beneficiary.repository.ts';
import { uuidv5 } from '../../db/ids.ts';
import { Refusal } from '../../platform/refusal.ts';
import { addBeneficiaryBankAccount } from '../../services/beneficiaries/bank-accounts.ts';
import { startBankAccountValidation } from '../../temporal/payments.ts';
import type { AppDeps } from '../deps.ts';
import { validationError } from '../errors.ts';
import { presentBankAccount } from '../presenters/bank-account.ts';
import { presentBeneficiary } from '../presenters/beneficiary.ts';
import { refusals } from '../refusals.ts';
import { defineRoute, type Caller } from '../route.ts';
import {
  BankAccountBody,
  BankAccountParams,
  BeneficiaryListQuery,
  BeneficiaryParams,
  CreateBankAccountRequest,
  CreateBeneficiaryRequest,
  UpdateBankAccountRequest,
} from '../schemas/beneficiaries.ts';
import { listOf, page } from '../schemas/common.ts';
import { BeneficiaryBody } from '../../read-models/document-schema.ts';

const BANK_ACCOUNT_EXISTS =
  'the beneficiary already has another account with this bank and number; `reference` (in the body) is that account';

/** A wrong field of a bank account answers as a validation error of that field, unless `as` keeps it a refusal. */
function fieldRefused(error: unknown, as: readonly BankAccountRefused['code'][] = []): unknown {
  if (!(error instanceof BankAccountRefused) || as.includes(error.code)) return error;
  return validationError({ [error.field]: [error.message] });
}

/**
 * A new row's reference. With an Idempotency-Key it is named by the company, the key and the request, so that a retry
 * whose answer was lost (a 5xx releases the key) finds what the first attempt wrote instead of being refused as a
 * duplicate of it; without one it is time-ordered like every id.
 */
function idOf(kind: string, caller: Caller, ctx: Context): string | null {
  const key = ctx.get('idempotency-key');
  return key ? uuidv5(`${kind}\n${caller.company.id}\n${key}\n${ctx.path}\n${ctx.request.rawBody ?? ''}`) : null;
}

/** Starts a validation attempt of an account, checking back as the API's configuration says. */
const validations = (deps: AppDeps) => ({
  orm: deps.orm,
  startValidation: (subject: { companyId: string; accountId: string; attempt: number }) =>
    startBankAccountValidation(deps.temporal, {
      ...subject,
      pollIntervalMs: deps.config.bankValidationPollIntervalMs,
    }),
});

/** Beneficiaries and their bank accounts. */
export const beneficiaryRoutes = [
  defineRoute({
    method: 'get',
    path: '/beneficiaries',
    operationId: 'listBeneficiaries',
    summary: 'List beneficiaries',
    description: [
      'By name, with their contacts and bank accounts; deleted beneficiaries are left out.',
      'Suppliers come from the documents received (matched by their tax identifier), and people reimbursed from expenses;',
      'integrators also create beneficiaries (POST /beneficiaries) and add their bank accounts (POST /beneficiaries/{reference}/bank-accounts).',
    ].join(' '),
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
    method: 'post',
    path: '/beneficiaries',
    operationId: 'createBeneficiary',
    summary: 'Create a beneficiary',
    description: [
      'A supplier or an employee the company pays, named by its identifier: answers 201 with the beneficiary,',
      'whose bank accounts are then added with POST /beneficiaries/{reference}/bank-accounts.',
      "The identifier is checked against its type and the company's country and written as the documents' suppliers are",
      "(without dots, spaces, hyphens or a NIT's check digit), so a supplier's documents received later find this beneficiary.",
      'An identifier the company already has answers 409 `beneficiary_exists` with the `reference` of the beneficiary that has it.',
      'Its e-mail and phone number are also its first contacts. Nothing is written when it is refused.',
    ].join(' '),
    tags: ['Beneficiaries'],
    auth: 'api-key',
    scope: 'beneficiaries:write',
    body: CreateBeneficiaryRequest,
    status: 201,
    response: BeneficiaryBody,
    errors: refusals(['beneficiary_exists', 'beneficiary_deleted', 'invalid_identifier'], {
      descriptions: {
        beneficiary_deleted: 'the beneficiary was deleted; `reference` (in the body) is that beneficiary',
      },
    }),
    handler: async ({ em, body, caller, ctx }) => {
      const id = idOf('beneficiary', caller, ctx);
      // A retry whose answer was lost: the beneficiary is written, and would otherwise be refused as existing.
      const earlier = id ? await findBeneficiary(em, id) : null;
      if (earlier) return presentBeneficiary(earlier);
      const created = await createBeneficiary(em, caller.company, {
        id,
        name: body.name,
        type: body.type,
        email: body.email ?? null,
        phoneNumber: body.phone_number ?? null,
        identifierType: body.identifier_type,
        identifierNumber: body.identifier_number,
        paymentTerms: body.payment_terms ?? null,
        fiscalAddress: body.fiscal_address ?? null,
        contacts: body.contact_information ?? [],
      });
      const written = await findBeneficiary(em.fork(), created.id);
      if (!written) throw new Error(`Beneficiary ${created.id} is not readable after its creation`);
      return presentBeneficiary(written);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/beneficiaries/:reference',
    operationId: 'getBeneficiary',
    summary: 'Get a beneficiary',
    description: [
      'One beneficiary of the company, as the list shows it, with its contacts and bank accounts',
      '(where their validation stands: the answer of POST or PUT bank-accounts, or a waiting payment, GET /payments/{reference}).',
      "A deleted beneficiary, or another company's, answers 404.",
    ].join(' '),
    tags: ['Beneficiaries'],
    auth: 'api-key',
    scope: 'beneficiaries:read',
    params: BeneficiaryParams,
    response: BeneficiaryBody,
    errors: refusals(['beneficiary_not_found']),
    handler: async ({ em, params }) => {
      const beneficiary = await findBeneficiary(em, params.reference);
      if (!beneficiary) throw new Refusal('beneficiary_not_found', 'Beneficiary not found');
      return presentBeneficiary(beneficiary);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/beneficiaries/:reference/bank-accounts',
    operationId: 'createBeneficiaryBankAccount',
    summary: 'Add a bank account to a beneficiary',
    description: [
      "Checked as a change is (PUT): the bank must be an active bank of the company's country (another country's answers",
      '422 `bank_of_another_country`, an unknown one `VALIDATION_ERROR` on bank_reference) and the account number must follow',
      'its rules (Colombia: 6 to 20 digits, Nequi and Daviplata the 10-digit mobile number;',
      'Mexico: an 18-digit CLABE of the chosen bank with a valid check digit).',
      'The holder is the beneficiary unless the account_recipient_* fields name another.',
      'Answers 201 with the account in `pending`, and its validation starts by itself',
      '(`processing`, then `validated`, `rejected` or `validation_error`); once the account is validated,',
      "the beneficiary's payments waiting for one (`payment_gateway.status` `waiting_for_validated_account`) go.",
      'The same account twice answers 409 `bank_account_exists` with the `reference` of the account the beneficiary has.',
      'Send an Idempotency-Key: a retry with it after a lost answer (or a 503) answers the account written',
      'and starts its validation if the first attempt could not.',
    ].join(' '),
    tags: ['Beneficiaries'],
    auth: 'api-key',
    scope: 'beneficiaries:write',
    params: BeneficiaryParams,
    body: CreateBankAccountRequest,
    status: 201,
    response: BankAccountBody,
    errors: refusals(
      ['beneficiary_not_found', 'bank_account_exists', 'beneficiary_deleted', 'bank_of_another_country'],
      {
        descriptions: { bank_account_exists: BANK_ACCOUNT_EXISTS },
      },
    ),
    handler: async ({ params, body, caller, deps, ctx }) => {
      let account;
      try {
        account = await addBeneficiaryBankAccount(validations(deps), caller.company, {
          accountId: idOf('bank-account', caller, ctx),
          beneficiaryId: params.reference,
          bankId: body.bank_reference,
          accountNumber: body.account_number,
          accountType: body.account_type,
          recipientName: body.account_recipient_name,
          recipientDocumentNumber: body.account_recipient_document_number,
          recipientDocumentType: body.account_recipient_document_type,
        });
      } catch (error) {
        throw fieldRefused(error, ['bank_account_exists', 'bank_of_another_country']);
      }
      return presentBankAccount(account);
    },
  }),
  defineRoute({
    method: 'put',
    path: '/beneficiaries/:reference/bank-accounts/:bank_account_reference',
    operationId: 'updateBeneficiaryBankAccount',
    summary: "Change a beneficiary's bank account",
    description: [
      'Every field is optional.',
      "The bank must be of the company's country; the account number must follow its rules (Colombia: 6 to 20 digits, Nequi and Daviplata the 10-digit mobile number;",
      'Mexico: an 18-digit CLABE of the chosen bank with a valid check digit).',
      'Any change puts `validation_status` back to `pending` and starts a validation (`processing`, then `validated`, `rejected` or `validation_error`).',
      'The account must exist: POST /beneficiaries/{reference}/bank-accounts adds one.',
      'A PUT on an account still `pending` starts its validation again (a no-op while it runs), so a change whose answer was lost may simply be repeated.',
    ].join(' '),
    tags: ['Beneficiaries'],
    auth: 'api-key',
    scope: 'beneficiaries:write',
    params: BankAccountParams,
    body: UpdateBankAccountRequest,
    response: BankAccountBody,
    errors: refusals(['beneficiary_not_found', 'bank_account_not_found', 'bank_account_exists'], {
      descriptions: { bank_account_exists: BANK_ACCOUNT_EXISTS },
    }),
    handler: async ({ em, params, body, caller, deps }) => {
      let written;
      try {
        written = await em.transactional(async (tx) => {
          const beneficiary = await tx.findOne(Beneficiary, { id: params.reference.toLowerCase() });
          if (!beneficiary) throw new Refusal('beneficiary_not_found', 'Beneficiary not found');
          const account = await lockBankAccount(tx, beneficiary, params.bank_account_reference);
          if (!account) throw new Refusal('bank_account_not_found', 'Bank account not found');
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
        if (error instanceof UniqueConstraintViolationException)
          throw new Refusal(
            'bank_account_exists',
            'The beneficiary already has another account with this bank and number',
          );
        throw fieldRefused(error, ['bank_account_exists']);
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
