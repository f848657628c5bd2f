import type { z } from 'zod';
import type { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import type { BankAccountBody } from '../schemas/beneficiaries.ts';

/** A beneficiary's bank account; its bank must be loaded. */
export function presentBankAccount(account: BeneficiaryBankAccount): z.input<typeof BankAccountBody> {
  return {
    reference: account.id,
    bank_reference: account.bank.id,
    bank_name: account.bank.name,
    account_number: account.accountNumber,
    account_type: account.accountType,
    validation_status: account.validationStatus,
    account_recipient_name: account.accountRecipientName,
    account_recipient_document_number: account.accountRecipientDocumentNumber,
    account_recipient_document_type: account.accountRecipientDocumentType,
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}
