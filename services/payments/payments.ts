import { LockMode } from '@mikro-orm/core';
import { Refusal } from '../../platform/refusal.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { Company } from '../../db/companies/company.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm, type EntityManager, type Orm } from '../../db/orm.ts';
import { resolveNewPayment } from '../../db/payments/new-payment.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { documentPaymentStatus, payableSettlement } from '../../db/payments/payment-status.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { DocumentTag } from '../../db/tags/document-tag.entity.ts';
import { PaymentTag } from '../../db/tags/payment-tag.entity.ts';
import type { Currency } from '../../db/money.ts';
import { isoDate } from '../../platform/money.ts';
import { releaseAt, todayIn } from './schedule.ts';

/** What POST /payments asks for, checked by the API and again, under lock, by the activity that writes it. */
export interface NewPaymentCommand {
  /** The beneficiary of a manual payment; for a payment of an existing payable, its beneficiary (or null). */
  beneficiaryId: string | null;
  /** An existing payable (a document's installment) to pay; null for a manual payment, which gets its own payable. */
  payableId: string | null;
  /** Integer cents as a string: workflow payloads are JSON, which has no bigint. */
  amountCents: string;
  currency: Currency;
  exchangeRate: string | null;
  exchangeCurrency: Currency | null;
  exchangeAmountCents: string | null;
  filePath: string | null;
  /** The day to hand it to the gateway (YYYY-MM-DD); null: the payable's due date, or today when it has none. */
  payDate: string | null;
  /** The manual payable: its dates (YYYY-MM-DD), concept and the type asked for. */
  payable: {
    issueDate: string;
    expirationDate: string;
    concept: string | null;
    type: 'supplier' | 'advance' | null;
  } | null;
}

/** Where a transfer stands with the gateway. */
export interface TransferState {
  /** Null when the gateway refused the transfer outright. */
  transferId: string | null;
  status: 'processing' | 'settled' | 'failed';
  failureReason: string | null;
  settledAt: string | null;
  method: string | null;
}

const paymentNotFound = (paymentId: string) => new Refusal('PaymentNotFound', `Payment ${paymentId} does not exist`);

export interface PaymentDeps {
  orm: Orm;
  /** Tests shorten the days ahead of a pay date (`PAYMENT_DAY_MS`); null: real days. */
  paymentDayMs: number | null;
}

/** When a pending payment is due to go to the gateway. */
export interface PaySchedule {
  payDate: string;
  /** Epoch ms: the start of the pay date where the company is, or the moment it was scheduled when that day had begun. */
  releaseAt: number;
}

/**
 * Writes a new payment in `pending` (and, for a manual payment, its payable), checked again under a lock on the
 * payable; a payment of a document's payable carries the document's tags. Safe to retry: the payment id is given.
 */
export async function createPayment(
  deps: PaymentDeps,
  input: NewPaymentCommand & { companyId: string; paymentId: string },
): Promise<{ paymentId: string } & PaySchedule> {
  const em = companyEm(deps.orm, input.companyId);
  return await em.transactional(async (tx) => {
    const company = await tx.findOneOrFail(Company, { id: input.companyId });
    const schedule = (payDate: string) => ({
      payDate,
      releaseAt: releaseAt(payDate, company.country, new Date(), deps.paymentDayMs),
    });
    const existing = await tx.findOne(Payment, { id: input.paymentId }, { fields: ['id', 'payDate'] });
    if (existing) return { paymentId: input.paymentId, ...schedule(existing.payDate) };
    const amountCents = BigInt(input.amountCents);
    const { beneficiary, payable, payableType } = await resolveNewPayment(
      tx,
      {
        beneficiaryId: input.beneficiaryId,
        payableId: input.payableId,
        amountCents,
        currency: input.currency,
        payableType: input.payable?.type ?? null,
      },
      { lock: true },
    );
    const target =
      payable ??
      tx.create(Payable, {
        company,
        document: null,
        beneficiary,
        type: payableType,
        status: 'pending',
        amountCents,
        currency: input.currency,
        balanceCents: amountCents,
        issueDate: input.payable?.issueDate ?? null,
        expirationDate: input.payable?.expirationDate ?? null,
        concept: input.payable?.concept ?? null,
        origin: 'manual',
        installmentNumber: 1,
        filePath: input.filePath,
      });
    const payDate = input.payDate ?? isoDate(target.expirationDate) ?? todayIn(company.country);
    const payment = tx.create(Payment, {
      id: input.paymentId,
      company,
      payable: target,
      beneficiary,
      amountCents,
      currency: input.currency,
      exchangeRate: input.exchangeRate,
      exchangeCurrency: input.exchangeCurrency,
      exchangeAmountCents: input.exchangeAmountCents === null ? null : BigInt(input.exchangeAmountCents),
      status: 'pending',
      payDate,
      paymentGateway: { status: 'scheduled', pay_date: payDate },
      filePath: input.filePath,
      isExpense: target.document?.type === 'expense',
      isPayroll: target.type === 'payroll',
    });
    if (target.document) {
      const links = await tx.find(DocumentTag, { document: target.document });
      for (const link of links) tx.create(PaymentTag, { company, payment, tag: link.tag });
    }
    return { paymentId: payment.id, ...schedule(payDate) };
  });
}

/** Marks a payment `in_process` once the gateway holds its transfer (a payment already further along is left alone). */
export async function markSubmitted(
  orm: Orm,
  input: { companyId: string; paymentId: string; transferId: string; submittedAt: string },
): Promise<void> {
  const em = companyEm(orm, input.companyId);
  await em.transactional(async (tx) => {
    const payment = await tx.findOne(Payment, { id: input.paymentId });
    if (!payment) throw paymentNotFound(input.paymentId);
    payment.gatewayReference = input.transferId;
    payment.paymentGateway = {
      ...payment.paymentGateway,
      provider: 'gateway',
      transfer_id: input.transferId,
      status: 'processing',
      submitted_at: input.submittedAt,
    };
    if (payment.status === 'pending') payment.status = 'in_process';
  });
}

/**
 * Records what the gateway did with a payment's transfer: `processed` (with paid_at) or `failed`, then brings its
 * payable's balance and status and its document's payment_status up to date, in the same transaction. Rows are
 * locked document first, then payable, so that payments settling together never compute from each other's past.
 * Idempotent: a payment already processed or failed is left as it is.
 */
export async function recordPaymentOutcome(
  orm: Orm,
  input: { companyId: string; paymentId: string; transfer: TransferState },
): Promise<{ status: Payment['status'] }> {
  const em = companyEm(orm, input.companyId);
  return em.transactional(async (tx) => {
    const found = await tx.findOne(Payment, { id: input.paymentId }, { populate: ['payable'] });
    if (!found) throw paymentNotFound(input.paymentId);
    if (found.status === 'processed' || found.status === 'failed') return { status: found.status };
    const documentId = found.payable.document?.id;
    const document = documentId
      ? await tx.findOneOrFail(Document, { id: documentId }, { lockMode: LockMode.PESSIMISTIC_WRITE })
      : null;
    const payable = await tx.findOneOrFail(Payable, { id: found.payable.id }, { lockMode: LockMode.PESSIMISTIC_WRITE });

    const settled = input.transfer.status === 'settled';
    const now = new Date();
    found.status = settled ? 'processed' : 'failed';
    found.paidAt = settled ? (input.transfer.settledAt ? new Date(input.transfer.settledAt) : now) : null;
    found.failureReason = settled ? null : (input.transfer.failureReason ?? 'The gateway did not process the transfer');
    found.paymentMethod ??= input.transfer.method;
    found.paymentGateway = {
      ...found.paymentGateway,
      provider: 'gateway',
      transfer_id: input.transfer.transferId,
      status: input.transfer.status,
      failure_reason: found.failureReason,
      settled_at: input.transfer.settledAt,
    };
    await tx.flush();
    if (!settled) return { status: found.status };

    await settle(tx, payable, document, { payment: found.id });
    return { status: found.status };
  });
}

/**
 * Recomputes a payable from its payments and crossed advances, and its document from all of its payables (grouped by
 * payable). `cause` says in the log what changed it.
 */
export async function settle(
  em: EntityManager,
  payable: Payable,
  document: Document | null,
  cause: Record<string, unknown>,
): Promise<void> {
  const amounts = (payments: Payment[]) =>
    payments.map((row) => ({ payableId: row.payable.id, amountCents: row.amountCents, status: row.status }));
  const settlement = payableSettlement(payable, amounts(await em.find(Payment, { payable })));
  payable.balanceCents = settlement.balanceCents;
  payable.status = settlement.status;
  if (!document) return;
  const payables = await em.find(Payable, { document });
  const payments = await em.find(Payment, { payable: { document } });
  const status = documentPaymentStatus(payables, amounts(payments));
  if (status === document.paymentStatus) return;
  document.paymentStatus = status;
  em.create(ActivityLog, {
    company: document.company,
    document,
    event: 'document.updated',
    actor: { type: 'system', source: 'payments' },
    metadata: { change: 'payment_status', payment_status: status, ...cause, payable: payable.id },
  });
}

/**
 * The pending payments of the beneficiary whose bank account this is: those a change of its validation may let go
 * to the gateway (or keep waiting, with a new reason).
 */
export async function pendingPaymentsOfAccount(
  orm: Orm,
  input: { companyId: string; accountId: string },
): Promise<string[]> {
  const em = companyEm(orm, input.companyId);
  const account = await em.findOne(BeneficiaryBankAccount, { id: input.accountId }, { fields: ['beneficiary'] });
  if (!account) return [];
  const payments = await em.find(Payment, { beneficiary: account.beneficiary, status: 'pending' }, { fields: ['id'] });
  return payments.map((payment) => payment.id);
}
