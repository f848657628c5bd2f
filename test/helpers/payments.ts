import { inject } from 'vitest';
import { clabeCheckDigit } from '../../db/banks/account-number.ts';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import {
  BeneficiaryBankAccount,
  type AccountType,
  type ValidationStatus,
} from '../../db/beneficiaries/bank-account.entity.ts';
import { addBankAccount } from '../../db/beneficiaries/bank-account.repository.ts';
import { Beneficiary, type BeneficiaryType } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { Payable, type PayableType } from '../../db/payments/payable.entity.ts';
import { PaymentBatch } from '../../db/payments/payment-batch.entity.ts';
import { Payment, type PaymentStatus } from '../../db/payments/payment.entity.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import { PaymentTag } from '../../db/tags/payment-tag.entity.ts';

let sequence = 0;

/** A beneficiary written directly, with an identifier unique to this run. */
export async function seedBeneficiary(
  orm: Orm,
  company: Company,
  seed: {
    name: string;
    type?: BeneficiaryType;
    identifierNumber?: string;
    email?: string | null;
    identifierType?: string;
  },
): Promise<Beneficiary> {
  const em = companyEm(orm, company.id);
  const beneficiary = em.create(Beneficiary, {
    company,
    name: seed.name,
    type: seed.type ?? 'supplier',
    email: seed.email ?? null,
    identifierType: seed.identifierType ?? (seed.type === 'employee' ? 'CC' : 'NIT'),
    identifierNumber: seed.identifierNumber ?? `7${process.pid}${++sequence}`.padStart(10, '0'),
  });
  await em.flush();
  return beneficiary;
}

/** A payable written directly: a document's installment when `document` is given, else a manual one. */
export async function seedPayable(
  orm: Orm,
  company: Company,
  seed: {
    beneficiary: Beneficiary;
    document?: Document;
    amountCents: bigint;
    expirationDate?: string | null;
    type?: PayableType;
    concept?: string;
    installmentNumber?: number;
  },
): Promise<Payable> {
  const em = companyEm(orm, company.id);
  const payable = em.create(Payable, {
    company,
    document: seed.document ?? null,
    beneficiary: seed.beneficiary,
    type: seed.type ?? 'supplier',
    status: 'pending',
    amountCents: seed.amountCents,
    currency: company.country === 'COL' ? 'COP' : 'MXN',
    balanceCents: seed.amountCents,
    issueDate: '2026-10-01',
    expirationDate: seed.expirationDate === undefined ? '2026-11-30' : seed.expirationDate,
    concept: seed.concept ?? null,
    origin: seed.document ? 'document' : 'manual',
    installmentNumber: seed.installmentNumber ?? 1,
  });
  await em.flush();
  return payable;
}

export interface PaymentSeed {
  payable: Payable;
  amountCents: bigint;
  status?: PaymentStatus;
  paidAt?: Date | null;
  paymentMethod?: string | null;
  batch?: PaymentBatch | null;
  isArchived?: boolean;
  isExpense?: boolean;
  createdAt?: Date;
  tags?: string[];
}

/** A payment written directly (no workflow): for lists whose expected result is known. */
export async function seedPayment(orm: Orm, company: Company, seed: PaymentSeed): Promise<Payment> {
  const em = companyEm(orm, company.id);
  const payment = em.create(Payment, {
    company,
    payable: seed.payable,
    beneficiary: seed.payable.beneficiary,
    amountCents: seed.amountCents,
    currency: seed.payable.currency,
    status: seed.status ?? 'pending',
    payDate: seed.payable.expirationDate ?? new Date().toISOString().slice(0, 10),
    paidAt: seed.paidAt ?? null,
    paymentMethod: seed.paymentMethod ?? null,
    batch: seed.batch ?? null,
    isArchived: seed.isArchived ?? false,
    isExpense: seed.isExpense ?? false,
    isPayroll: seed.payable.type === 'payroll',
  });
  await em.flush();
  if (seed.createdAt) await em.nativeUpdate(Payment, { id: payment.id }, { createdAt: seed.createdAt });
  for (const tag of await ensureTags(em, company, seed.tags ?? [])) em.create(PaymentTag, { company, payment, tag });
  await em.flush();
  return payment;
}

export async function seedBatch(orm: Orm, company: Company, name: string): Promise<PaymentBatch> {
  const em = companyEm(orm, company.id);
  const batch = em.create(PaymentBatch, { company, name, currency: 'COP', status: 'released' });
  await em.flush();
  return batch;
}

/**
 * A bank account added as `ops bank-accounts add` does, without starting its validation: `validated` unless another
 * status is asked for, so that payments to it go.
 */
export async function seedBankAccount(
  orm: Orm,
  company: Company,
  beneficiary: Beneficiary,
  account: { bankCode: string; accountNumber: string; accountType?: AccountType; validationStatus?: ValidationStatus },
): Promise<BeneficiaryBankAccount> {
  const em = companyEm(orm, company.id);
  return em.transactional(async (tx) => {
    const added = await addBankAccount(
      tx,
      company.country,
      await tx.findOneOrFail(Beneficiary, { id: beneficiary.id }),
      {
        bankId: bankReference(company.country, account.bankCode),
        accountNumber: account.accountNumber,
        accountType: account.accountType ?? 'savings',
        recipientName: beneficiary.name,
        recipientDocumentNumber: beneficiary.identifierNumber,
        recipientDocumentType: beneficiary.identifierType,
      },
    );
    added.validationStatus = account.validationStatus ?? 'validated';
    return added;
  });
}

async function control(base: string, body: unknown): Promise<void> {
  const response = await fetch(`${base}/_control/outcomes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`The simulator refused the outcome: ${await response.text()}`);
}

/** Steers the suite's payment gateway for one payment reference or one amount in cents (unique to the test). */
export const steerGateway = (rule: {
  reference?: string;
  amount_cents?: string;
  outcome: 'settle' | 'fail' | 'hold' | 'refuse';
  after_checks?: number;
  reason?: string;
}) => control(inject('outside').paymentGatewayUrl, rule);

/** Steers the suite's bank-validation service for one account number (unique to the test). */
export const steerBankValidation = (rule: {
  account_number: string;
  outcome: 'valid' | 'invalid' | 'error' | 'hold';
  after_checks?: number;
  reason?: string;
}) => control(inject('outside').bankValidationUrl, rule);

/** A transfer as the suite's gateway holds it, with the account it pays to. */
export interface GatewayTransfer {
  id: string;
  reference: string;
  status: string;
  amount_cents: string;
  account: { bank_code: string; account_number: string; account_type: string };
}

/** The transfers the suite's gateway holds for these payment references. */
export async function gatewayTransfers(references: string[]): Promise<GatewayTransfer[]> {
  const response = await fetch(`${inject('outside').paymentGatewayUrl}/_control/transfers`);
  const { transfers } = (await response.json()) as { transfers: GatewayTransfer[] };
  return transfers.filter((transfer) => references.includes(transfer.reference));
}

/** The bulk transfers the suite's gateway took, by the batch reference they were sent under. */
export async function gatewayBulkTransfer(
  batch: string,
): Promise<{ id: string; reference: string; transfers: { id: string | null; reference: string }[] } | undefined> {
  const response = await fetch(`${inject('outside').paymentGatewayUrl}/_control/bulk-transfers`);
  const { bulk_transfers: bulks } = (await response.json()) as {
    bulk_transfers: { id: string; reference: string; transfers: { id: string | null; reference: string }[] }[];
  };
  return bulks.find((bulk) => bulk.reference === batch);
}

/** A valid CLABE of a bank: its code, 14 digits unique to the test, and the check digit. */
export function clabeOf(bankCode: string, digits: string): string {
  const first17 = `${bankCode}${digits.padStart(14, '0').slice(-14)}`;
  return `${first17}${clabeCheckDigit(first17)}`;
}
