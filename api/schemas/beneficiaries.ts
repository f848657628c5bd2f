import { z } from 'zod';
import { VALIDATION_STATUSES } from '../../db/beneficiaries/bank-account.entity.ts';
import { AccountType } from '../../read-models/enums.ts';
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

export const UpdateBankAccountRequest = z
  .object({
    bank_reference: Reference.optional().describe("A bank of the company's country (GET /banks)"),
    account_number: trimmedString()
      .min(1)
      .max(40)
      .optional()
      .describe(
        'Colombia: 6 to 20 digits (Nequi and Daviplata: the 10-digit mobile number); Mexico: an 18-digit CLABE of the chosen bank. Spaces and hyphens are ignored',
      ),
    account_type: AccountType.optional(),
    account_recipient_name: Text.optional(),
    account_recipient_document_number: Text.optional(),
    account_recipient_document_type: trimmedString()
      .min(1)
      .max(20)
      .transform((value) => value.toUpperCase())
      .optional(),
  })
  .describe('Every field is optional; any change puts the account back to `pending` and starts its validation.');
