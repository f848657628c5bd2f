import type { z } from 'zod';
import type { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { BeneficiaryBody } from '../../read-models/document-schema.ts';

/** A beneficiary with its contacts and bank accounts (each bank loaded), as the beneficiaries list shows it. */
export function presentBeneficiary(beneficiary: Beneficiary): z.input<typeof BeneficiaryBody> {
  return {
    reference: beneficiary.id,
    name: beneficiary.name,
    type: beneficiary.type,
    email: beneficiary.email ?? null,
    phone_number: beneficiary.phoneNumber ?? null,
    identifier_type: beneficiary.identifierType,
    identifier_number: beneficiary.identifierNumber,
    payment_terms: beneficiary.erpPaymentTermDays ?? beneficiary.paymentTerms ?? null,
    fiscal_address: beneficiary.fiscalAddress ?? null,
    contact_information: beneficiary.contacts.isInitialized()
      ? beneficiary.contacts.getItems().map((contact) => ({ type: contact.type, value: contact.value }))
      : [],
    bank_accounts: beneficiary.bankAccounts.isInitialized()
      ? beneficiary.bankAccounts.getItems().map((account) => ({
          reference: account.id,
          bank_reference: account.bank.id,
          bank_name: account.bank.name,
          account_number: account.accountNumber,
        }))
      : [],
    created_at: beneficiary.createdAt.toISOString(),
    updated_at: beneficiary.updatedAt.toISOString(),
  };
}
