// Pure rules for what payments mean for their payables and documents: no database, so they are unit-tested alone.
import type { DocumentPaymentStatus } from '../documents/document.entity.ts';
import type { PayableStatus } from './payable.entity.ts';
import type { PaymentStatus } from './payment.entity.ts';

export interface PayableAmount {
  id: string;
  amountCents: bigint;
  status: PayableStatus;
  /** Settled by crossing advances, as the ERP registered it. */
  crossedCents?: bigint;
}

export interface PaymentAmount {
  payableId: string;
  amountCents: bigint;
  status: PaymentStatus;
}

export interface PayableSettlement {
  paidCents: bigint;
  balanceCents: bigint;
  status: PayableStatus;
}

/** Only processed payments have moved money; pending, in-process and failed ones count for nothing. */
function paidByPayable(payments: readonly PaymentAmount[]): Map<string, bigint> {
  const paid = new Map<string, bigint>();
  for (const payment of payments) {
    if (payment.status === 'processed')
      paid.set(payment.payableId, (paid.get(payment.payableId) ?? 0n) + payment.amountCents);
  }
  return paid;
}

/**
 * A payable's balance and status from its own processed payments and what advances crossed on it; a canceled
 * payable stays canceled.
 */
export function payableSettlement(payable: PayableAmount, payments: readonly PaymentAmount[]): PayableSettlement {
  const paidCents =
    (paidByPayable(payments.filter((payment) => payment.payableId === payable.id)).get(payable.id) ?? 0n) +
    (payable.crossedCents ?? 0n);
  const balanceCents = paidCents >= payable.amountCents ? 0n : payable.amountCents - paidCents;
  const status: PayableStatus =
    payable.status === 'canceled' ? 'canceled' : balanceCents === 0n ? 'paid' : paidCents > 0n ? 'partial' : 'pending';
  return { paidCents, balanceCents, status };
}

/**
 * A document's payment status from its payables and their payments, grouped by payable before summing (the spec's
 * warning: one debt may be split across payables, so a surplus on one never covers another): `paid` when every
 * payable that is not canceled is fully paid, `partial` when any money has been paid, else `pending`.
 */
export function documentPaymentStatus(
  payables: readonly PayableAmount[],
  payments: readonly PaymentAmount[],
): DocumentPaymentStatus {
  const open = payables.filter((payable) => payable.status !== 'canceled');
  if (open.length === 0) return 'pending';
  const moved = paidByPayable(payments);
  const paid = (payable: PayableAmount) => (moved.get(payable.id) ?? 0n) + (payable.crossedCents ?? 0n);
  const settled = open.filter((payable) => paid(payable) >= payable.amountCents);
  if (settled.length === open.length) return 'paid';
  return open.some((payable) => paid(payable) > 0n) ? 'partial' : 'pending';
}
