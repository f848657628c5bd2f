import { Refusal } from '../../platform/refusal.ts';
import { LockMode } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import type { Currency } from '../money.ts';
import type { EntityManager } from '../orm.ts';
import { Payable, type PayableType } from './payable.entity.ts';
import { Payment } from './payment.entity.ts';

/** Why a new payment is refused. */
export const PAYMENT_REFUSALS = [
  'beneficiary_not_found',
  'payable_not_found',
  'beneficiary_deleted',
  'beneficiary_mismatch',
  'currency_mismatch',
  'payable_not_payable',
  'amount_exceeds_balance',
  'invalid_payable_type',
  'document_canceled',
] as const;
export type PaymentRefusal = (typeof PAYMENT_REFUSALS)[number];

export class PaymentRefused extends Refusal<PaymentRefusal> {}

export interface NewPaymentTarget {
  beneficiaryId: string | null;
  payableId: string | null;
  amountCents: bigint;
  currency: Currency;
  /** The type asked for a manual payable (`supplier` when absent). */
  payableType: 'supplier' | 'advance' | null;
}

export interface ResolvedPayment {
  beneficiary: Beneficiary;
  /** The existing payable paid, or null for a manual payment (whose payable is created with it). */
  payable: Payable | null;
  /** The type of the manual payable: payroll for employees. */
  payableType: PayableType;
}

const cents = (value: bigint) => `${value / 100n}.${(value % 100n).toString().padStart(2, '0')}`;

/**
 * What a payable still leaves to pay: its amount less the advances crossed on it and the payments processed or under
 * way (only failed ones give their amount back). Negative when more was committed than it owes.
 */
export async function leftToPay(em: EntityManager, payable: Payable): Promise<bigint> {
  const committed = await em.find(Payment, { payable, status: { $ne: 'failed' } }, { fields: ['amountCents'] });
  return payable.amountCents - payable.crossedCents - committed.reduce((sum, payment) => sum + payment.amountCents, 0n);
}

/**
 * Checks what a new payment is for: its beneficiary, or the payable it pays (which must be open, in the same
 * currency, with enough left once the payments already processed or under way are counted). With `lock`, the
 * payable row stays locked until the transaction ends, so that concurrent payments of one payable cannot together
 * exceed it.
 */
export async function resolveNewPayment(
  em: EntityManager,
  target: NewPaymentTarget,
  options: { lock?: boolean } = {},
): Promise<ResolvedPayment> {
  if (target.payableId) {
    const payable = await em.findOne(
      Payable,
      { id: target.payableId },
      options.lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {},
    );
    if (!payable) throw new PaymentRefused('payable_not_found', 'No payable of the company has this reference');
    await em.populate(payable, ['beneficiary', 'document']);
    if (payable.document?.isCanceled)
      throw new PaymentRefused(
        'document_canceled',
        `The payable's document was cancelled before the tax authority${payable.document.canceledAt ? ` on ${payable.document.canceledAt.toISOString()}` : ''}: it is not paid`,
      );
    if (target.beneficiaryId && target.beneficiaryId !== payable.beneficiary.id)
      throw new PaymentRefused('beneficiary_mismatch', "beneficiary_reference is not the payable's beneficiary");
    if (payable.beneficiary.isDeleted)
      throw new PaymentRefused('beneficiary_deleted', 'The beneficiary has been deleted');
    if (target.currency !== payable.currency)
      throw new PaymentRefused(
        'currency_mismatch',
        `The payable is in ${payable.currency}; pay it in that currency (use exchange_rate and exchange_currency for a conversion)`,
      );
    if (payable.status === 'canceled' || payable.status === 'paid')
      throw new PaymentRefused('payable_not_payable', `The payable is ${payable.status}`);
    const outstanding = await leftToPay(em, payable);
    if (target.amountCents > outstanding) {
      throw new PaymentRefused(
        'amount_exceeds_balance',
        `The payable has ${cents(outstanding > 0n ? outstanding : 0n)} ${payable.currency} left to pay once the payments processed or under way and the advances crossed are counted`,
      );
    }
    return { beneficiary: payable.beneficiary, payable, payableType: payable.type };
  }
  const beneficiary = target.beneficiaryId ? await em.findOne(Beneficiary, { id: target.beneficiaryId }) : null;
  if (!beneficiary)
    throw new PaymentRefused('beneficiary_not_found', 'No beneficiary of the company has this reference');
  if (beneficiary.isDeleted) throw new PaymentRefused('beneficiary_deleted', 'The beneficiary has been deleted');
  if (beneficiary.type === 'employee' && target.payableType === 'advance')
    throw new PaymentRefused('invalid_payable_type', 'Payments to employees are payroll, not advances');
  return {
    beneficiary,
    payable: null,
    payableType: beneficiary.type === 'employee' ? 'payroll' : (target.payableType ?? 'supplier'),
  };
}
