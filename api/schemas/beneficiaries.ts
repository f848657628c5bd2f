import { z } from 'zod';
import { VALIDATION_STATUSES } from '../../db/beneficiaries/bank-account.entity.ts';
import { IDENTIFIER_TYPES } from '../../db/beneficiaries/identifier.ts';
import { AccountType, BeneficiaryType, ContactType } from '../../read-models/enums.ts';
import { PageQuery } from './common.ts';
import { Reference, trimmedString } from '../../platform/schema-atoms.ts';

const DateTime = z.iso.datetime({ offset: true });

export const BeneficiaryListQuery = z.object({
  ...PageQuery,
  search: trimmedString()
    .min(1)
    .max(100, 'Must be at most 100 characters')
    .optional()
    .describe('Text in the name (or the identifier number), without case'),
});

export const BankAccountParams = z.object({ reference: Reference, bank_account_reference: Reference });

export const BankAccountBody = z
  .strictObject({
    reference: Reference,
    bank_reference: Reference,
    bank_name: z.string(),
    account_number: z.string(),
    account_type: AccountType,
    validation_status: z
      .enum(VALIDATION_STATUSES)
      .describe('pending → processing → validated, rejected or validation_error; any change starts again at pending'),
    account_recipient_name: z.string(),
    account_recipient_document_number: z.string(),
    account_recipient_document_type: z.string().describe('NIT, CC, RFC...'),
    created_at: DateTime,
    updated_at: DateTime,
  })
  .meta({ id: 'BeneficiaryBankAccount' });

const Text = trimmedString().min(1, 'Must not be empty').max(255, 'Must be at most 255 characters');

const AccountFields = {
  bank_reference: Reference.describe("A bank of the company's country (GET /banks)"),
  account_number: trimmedString()
    .min(1)
    .max(40)
    .describe(
      'Colombia: 6 to 20 digits (Nequi and Daviplata: the 10-digit mobile number); Mexico: an 18-digit CLABE of the chosen bank. Spaces and hyphens are ignored',
    ),
  account_type: AccountType,
  account_recipient_name: Text,
  account_recipient_document_number: Text,
  account_recipient_document_type: trimmedString()
    .min(1)
    .max(20)
    .transform((value) => value.toUpperCase()),
};

export const UpdateBankAccountRequest = z
  .object({
    bank_reference: AccountFields.bank_reference.optional(),
    account_number: AccountFields.account_number.optional(),
    account_type: AccountFields.account_type.optional(),
    account_recipient_name: AccountFields.account_recipient_name.optional(),
    account_recipient_document_number: AccountFields.account_recipient_document_number.optional(),
    account_recipient_document_type: AccountFields.account_recipient_document_type.optional(),
  })
  .describe('Every field is optional; any change puts the account back to `pending` and starts its validation.');

export const CreateBankAccountRequest = z
  .object({
    bank_reference: AccountFields.bank_reference,
    account_number: AccountFields.account_number,
    account_type: AccountFields.account_type,
    account_recipient_name: AccountFields.account_recipient_name
      .optional()
      .describe("The holder's name; the beneficiary's name when not given"),
    account_recipient_document_number: AccountFields.account_recipient_document_number
      .optional()
      .describe("The holder's document number; the beneficiary's identifier number when not given"),
    account_recipient_document_type: AccountFields.account_recipient_document_type
      .optional()
      .describe("The holder's document type (NIT, CC, RFC...); the beneficiary's identifier type when not given"),
  })
  .describe('The account is held by the beneficiary unless the account_recipient_* fields name another holder.');

export const BeneficiaryParams = z.object({ reference: Reference });

const EmailAddress = z.email('Must be an e-mail address').max(255, 'Must be at most 255 characters');
const PhoneNumber = trimmedString().min(1, 'Must not be empty').max(30, 'Must be at most 30 characters');

const ContactInput = z
  .object({
    type: ContactType,
    value: trimmedString().min(1, 'Must not be empty').max(255, 'Must be at most 255 characters'),
  })
  .superRefine((contact, context) => {
    const check = contact.type === 'email' ? EmailAddress : PhoneNumber;
    for (const issue of check.safeParse(contact.value).error?.issues ?? [])
      context.addIssue({ code: 'custom', path: ['value'], message: issue.message });
  })
  .describe('An e-mail address (`email`) or a phone number of at most 30 characters (`phone`)');

export const CreateBeneficiaryRequest = z
  .object({
    name: Text,
    type: BeneficiaryType.default('supplier').describe(
      '`supplier` (absent: supplier) or `employee` (paid through payroll payables)',
    ),
    identifier_type: trimmedString()
      .min(1, 'Must not be empty')
      .max(20, 'Must be at most 20 characters')
      .describe(
        `Compared without case. Colombia: ${IDENTIFIER_TYPES.COL.join(', ')}; Mexico: ${IDENTIFIER_TYPES.MEX.join(', ')}`,
      ),
    identifier_number: trimmedString()
      .min(1, 'Must not be empty')
      .max(50, 'Must be at most 50 characters')
      .describe(
        [
          'Dots, spaces and hyphens are dropped. A NIT is digits, its check digit optionally after a hyphen (`900123456-8`),',
          'checked and not kept; an RFC has 12 (a company) or 13 (a person) characters with a real date;',
          'CC, TI, RC and NUIP are digits; other documents letters and digits',
        ].join(' '),
      ),
    email: EmailAddress.nullish(),
    phone_number: PhoneNumber.nullish(),
    payment_terms: z.number().int().min(0).max(3650).nullish().describe('Payment term in days'),
    fiscal_address: trimmedString().min(1, 'Must not be empty').max(500, 'Must be at most 500 characters').nullish(),
    contact_information: z
      .array(ContactInput)
      .max(20, 'At most 20 contacts')
      .optional()
      .describe('Other e-mail addresses and phone numbers; `email` and `phone_number` are contacts too'),
  })
  .describe('A supplier or employee the company pays; bank accounts are added afterwards (POST bank-accounts).');
