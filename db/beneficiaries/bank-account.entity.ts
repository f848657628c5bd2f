import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Bank } from '../banks/bank.entity.ts';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { Beneficiary } from './beneficiary.entity.ts';

export const ACCOUNT_TYPES = ['savings', 'checking'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

export const VALIDATION_STATUSES = ['pending', 'processing', 'validated', 'rejected', 'validation_error'] as const;
export type ValidationStatus = (typeof VALIDATION_STATUSES)[number];

/** A bank account of a beneficiary, where payments are sent once the account is validated. */
export const BeneficiaryBankAccount = defineEntity({
  name: 'BeneficiaryBankAccount',
  tableName: 'beneficiary_bank_accounts',
  uniques: [{ properties: ['beneficiary', 'bank', 'accountNumber'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    beneficiary: () => p.manyToOne(Beneficiary),
    bank: () => p.manyToOne(Bank),
    accountNumber: p.string(),
    accountType: p.enum(ACCOUNT_TYPES).nativeEnumName('account_type'),
    validationStatus: p.enum(VALIDATION_STATUSES).nativeEnumName('validation_status').default('pending'),
    validationMessage: p.text().nullable(),
    /** Copied from the beneficiary when the caller gives none, since the spec always shows them. */
    accountRecipientName: p.string(),
    accountRecipientDocumentNumber: p.string(),
    accountRecipientDocumentType: p.string(),
    /** Incremented on each (re)validation; numbers the workflow id bank-account-validation/<ref>/<n>. */
    validationAttempt: p.integer().default(0),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type BeneficiaryBankAccount = InferEntity<typeof BeneficiaryBankAccount>;
