import { Refusal } from '../../platform/refusal.ts';
import { LockMode } from '@mikro-orm/core';
import { checkAccountNumber } from '../banks/account-number.ts';
import { Bank } from '../banks/bank.entity.ts';
import type { Country } from '../companies/company.entity.ts';
import type { EntityManager } from '../orm.ts';
import { BeneficiaryBankAccount, type AccountType } from './bank-account.entity.ts';
import type { Beneficiary } from './beneficiary.entity.ts';

/**
 * A change or an account that cannot be: a field that is wrong, a bank of another country than the company's, or
 * another account of the beneficiary already being it (`reference` names that one).
 */
export class BankAccountRefused extends Refusal<'invalid_field' | 'bank_of_another_country' | 'bank_account_exists'> {
  /** The field at fault. */
  readonly field: string;
  constructor(code: BankAccountRefused['code'], field: string, message: string, reference: string | null = null) {
    // bank_account_exists: `reference` is the account the beneficiary has.
    super(code, message, { details: reference ? { reference } : {} });
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
  const bank = await em.findOne(Bank, { id: bankId.toLowerCase(), active: true });
  if (!bank)
    throw new BankAccountRefused(
      'invalid_field',
      'bank_reference',
      `No bank of ${country} has this reference (see GET /banks)`,
    );
  if (bank.country !== country)
    throw new BankAccountRefused(
      'bank_of_another_country',
      'bank_reference',
      `${bank.name} is a bank of ${bank.country}: the company's beneficiaries are paid at banks of ${country} (see GET /banks)`,
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
      other.id,
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

/** A new account's fields: its holder is the beneficiary unless another is named. */
export type NewBankAccountFields = Omit<
  BankAccountFields,
  'recipientName' | 'recipientDocumentNumber' | 'recipientDocumentType'
> &
  Partial<Pick<BankAccountFields, 'recipientName' | 'recipientDocumentNumber' | 'recipientDocumentType'>> & {
    /** Given so that a retried request writes the account it wrote before, not another. */
    id?: string;
  };

/**
 * Adds a bank account to a beneficiary, checked as a change is, in `pending` under its first validation attempt. The
 * holder (name, document type and number) is the beneficiary unless the fields name another; the document type is
 * upper-cased.
 */
export async function addBankAccount(
  em: EntityManager,
  country: Country,
  beneficiary: Beneficiary,
  fields: NewBankAccountFields,
): Promise<BeneficiaryBankAccount> {
  const bank = await bankOf(em, country, fields.bankId);
  const accountNumber = checkedNumber(country, bank, fields.accountNumber);
  await refuseDuplicate(em, beneficiary, bank, accountNumber, null);
  return em.create(BeneficiaryBankAccount, {
    ...(fields.id ? { id: fields.id } : {}),
    company: beneficiary.company,
    beneficiary,
    bank,
    accountNumber,
    accountType: fields.accountType,
    accountRecipientName: fields.recipientName || beneficiary.name,
    accountRecipientDocumentNumber: fields.recipientDocumentNumber || beneficiary.identifierNumber,
    accountRecipientDocumentType: (fields.recipientDocumentType || beneficiary.identifierType).toUpperCase(),
    validationStatus: 'pending',
    validationAttempt: 1,
  });
}
