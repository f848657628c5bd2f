import { LockMode } from '@mikro-orm/core';
import { checkAccountNumber } from '../banks/account-number.ts';
import { Bank } from '../banks/bank.entity.ts';
import type { Country } from '../companies/company.entity.ts';
import type { EntityManager } from '../orm.ts';
import { BeneficiaryBankAccount, type AccountType } from './bank-account.entity.ts';
import type { Beneficiary } from './beneficiary.entity.ts';

/** A change the account cannot take: a field that is wrong, or another account of the beneficiary already being it. */
export class BankAccountRefused extends Error {
  readonly code: 'invalid_field' | 'bank_account_exists';
  readonly field: string;
  constructor(code: BankAccountRefused['code'], field: string, message: string) {
    super(message);
    this.code = code;
    this.field = field;
  }
}

export interface BankAccountFields {
  bankId: string;
  accountNumber: string;
  accountType: AccountType;
  recipientName: string;
  recipientDocumentNumber: string;
  recipientDocumentType: string;
}

async function bankOf(em: EntityManager, country: Country, bankId: string): Promise<Bank> {
  const bank = await em.findOne(Bank, { id: bankId.toLowerCase(), country, active: true });
  if (!bank)
    throw new BankAccountRefused(
      'invalid_field',
      'bank_reference',
      `No bank of ${country} has this reference (see GET /banks)`,
    );
  return bank;
}

function checkedNumber(country: Country, bank: Bank, accountNumber: string): string {
  const check = checkAccountNumber(country, bank.code, accountNumber);
  if (!check.ok) throw new BankAccountRefused('invalid_field', 'account_number', check.message);
  return check.accountNumber;
}

async function refuseDuplicate(
  em: EntityManager,
  beneficiary: Beneficiary,
  bank: Bank,
  accountNumber: string,
  except: string | null,
): Promise<void> {
  const other = await em.findOne(
    BeneficiaryBankAccount,
    { beneficiary, bank, accountNumber, ...(except ? { id: { $ne: except } } : {}) },
    { fields: ['id'] },
  );
  if (other)
    throw new BankAccountRefused(
      'bank_account_exists',
      'account_number',
      `The beneficiary already has this account at this bank (${other.id})`,
    );
}

/** A beneficiary's account, locked for the rest of the transaction; null when the beneficiary has no such account. */
export async function lockBankAccount(
  em: EntityManager,
  beneficiary: Beneficiary,
  accountId: string,
): Promise<BeneficiaryBankAccount | null> {
  const account = await em.findOne(
    BeneficiaryBankAccount,
    { id: accountId.toLowerCase(), beneficiary },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (account) await em.populate(account, ['bank']);
  return account;
}

/**
 * Applies the given fields to an account: the bank must be of the company's country and the account number must
 * follow the country's rules for that bank. Any change puts the account back to `pending` under a new validation
 * attempt. Returns whether anything changed.
 */
export async function changeBankAccount(
  em: EntityManager,
  country: Country,
  account: BeneficiaryBankAccount,
  changes: Partial<BankAccountFields>,
): Promise<boolean> {
  const bank =
    changes.bankId && changes.bankId.toLowerCase() !== account.bank.id
      ? await bankOf(em, country, changes.bankId)
      : account.bank;
  const accountNumber =
    changes.accountNumber !== undefined || bank !== account.bank
      ? checkedNumber(country, bank, changes.accountNumber ?? account.accountNumber)
      : account.accountNumber;
  const next = {
    accountType: changes.accountType ?? account.accountType,
    accountRecipientName: changes.recipientName ?? account.accountRecipientName,
    accountRecipientDocumentNumber: changes.recipientDocumentNumber ?? account.accountRecipientDocumentNumber,
    accountRecipientDocumentType: changes.recipientDocumentType ?? account.accountRecipientDocumentType,
  };
  const moved = bank !== account.bank || accountNumber !== account.accountNumber;
  const changed = moved || (Object.keys(next) as (keyof typeof next)[]).some((key) => next[key] !== account[key]);
  if (!changed) return false;
  if (moved) await refuseDuplicate(em, account.beneficiary, bank, accountNumber, account.id);
  Object.assign(account, next, { bank, accountNumber });
  account.validationStatus = 'pending';
  account.validationMessage = null;
  account.validationAttempt += 1;
  return true;
}

/** Adds a bank account to a beneficiary, checked as a change is, in `pending` under its first validation attempt. */
export async function addBankAccount(
  em: EntityManager,
  country: Country,
  beneficiary: Beneficiary,
  fields: BankAccountFields,
): Promise<BeneficiaryBankAccount> {
  const bank = await bankOf(em, country, fields.bankId);
  const accountNumber = checkedNumber(country, bank, fields.accountNumber);
  await refuseDuplicate(em, beneficiary, bank, accountNumber, null);
  return em.create(BeneficiaryBankAccount, {
    company: beneficiary.company,
    beneficiary,
    bank,
    accountNumber,
    accountType: fields.accountType,
    accountRecipientName: fields.recipientName,
    accountRecipientDocumentNumber: fields.recipientDocumentNumber,
    accountRecipientDocumentType: fields.recipientDocumentType,
    validationStatus: 'pending',
    validationAttempt: 1,
  });
}
