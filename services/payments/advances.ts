import { Refusal } from '../../platform/refusal.ts';
import { LockMode } from '@mikro-orm/core';
import type { AdvanceCrossing } from '../../db/accounting/accounting-entry.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import type { Currency } from '../../db/money.ts';
import type { EntityManager } from '../../db/orm.ts';
import { owedCents } from '../../db/payments/payable-schedule.ts';
import { Payment } from '../../db/payments/payment.entity.ts';

export type AdvanceRefusal = 'payment_not_found' | 'not_an_advance' | 'advance_not_paid' | 'outstanding_out_of_range';

export class AdvanceRefused extends Refusal<AdvanceRefusal> {}

/** An advance's balance: what was paid, and what the ERP says is left to cross against documents. */
export interface AdvanceBalance {
  paymentId: string;
  currency: Currency;
  originalCents: bigint;
  outstandingCents: bigint;
  updatedAt: Date | null;
}

/** An advance's balance; before the ERP says anything, all of it is outstanding. */
export const advanceBalance = (payment: Payment): AdvanceBalance => ({
  paymentId: payment.id,
  currency: payment.currency,
  originalCents: payment.amountCents,
  outstandingCents: payment.advanceOutstandingCents ?? payment.amountCents,
  updatedAt: payment.advanceBalanceUpdatedAt ?? null,
});

/**
 * Sets what is left of an advance after the ERP crossed it against a document (`document.accounted`'s
 * advance_crossings): 0 ≤ outstanding ≤ the advance paid. Setting the same value again changes nothing.
 */
export async function updateAdvanceBalance(
  em: EntityManager,
  input: { paymentId: string; outstandingCents: bigint },
): Promise<AdvanceBalance> {
  return em.transactional(async (tx) => {
    const payment = await tx.findOne(
      Payment,
      { id: input.paymentId.toLowerCase() },
      { populate: ['payable'], lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!payment) throw new AdvanceRefused('payment_not_found', 'Payment not found');
    if (payment.payable.type !== 'advance')
      throw new AdvanceRefused('not_an_advance', `The payment pays a ${payment.payable.type} payable, not an advance`);
    if (payment.status !== 'processed')
      throw new AdvanceRefused(
        'advance_not_paid',
        `The advance is ${payment.status}: only a paid advance can be crossed`,
      );
    if (input.outstandingCents < 0n || input.outstandingCents > payment.amountCents)
      throw new AdvanceRefused(
        'outstanding_out_of_range',
        `outstanding_amount_cents must be from 0 to the advance's ${payment.amountCents} cents`,
      );
    if (payment.advanceOutstandingCents !== input.outstandingCents) {
      payment.advanceOutstandingCents = input.outstandingCents;
      payment.advanceBalanceUpdatedAt = new Date();
    }
    return advanceBalance(payment);
  });
}

/**
 * The crossings proposed for a document's voucher: its beneficiary's paid advances in its currency with something
 * left, oldest first, each crossed for as much as the document still owes. `outstanding_amount_cents` is what would be
 * left of the advance after the crossing; the ERP reports the balance it actually keeps once registered.
 */
export async function proposedCrossings(em: EntityManager, document: Document): Promise<AdvanceCrossing[]> {
  if (document.type !== 'invoice' || !document.beneficiary) return [];
  const advances = await em.find(
    Payment,
    {
      beneficiary: document.beneficiary,
      currency: document.currency,
      status: 'processed',
      payable: { type: 'advance' },
      $or: [{ advanceOutstandingCents: null }, { advanceOutstandingCents: { $gt: 0n } }],
    },
    { orderBy: { paidAt: 'asc', id: 'asc' } },
  );
  const crossings: AdvanceCrossing[] = [];
  let owed = owedCents(document);
  for (const advance of advances) {
    if (owed <= 0n) break;
    const { outstandingCents } = advanceBalance(advance);
    const crossed = outstandingCents < owed ? outstandingCents : owed;
    owed -= crossed;
    crossings.push({
      external_move_line_id: advance.erpPaymentReference ?? advance.id,
      external_move_id: null,
      external_payment_id: advance.erpPaymentReference ?? null,
      amount_cents: Number(crossed),
      original_amount_cents: Number(advance.amountCents),
      outstanding_amount_cents: Number(outstandingCents - crossed),
      currency: advance.currency,
      advance_date: (advance.paidAt ?? advance.createdAt).toISOString().slice(0, 10),
      status: 'proposed',
      reference: advance.id,
    });
  }
  return crossings;
}
