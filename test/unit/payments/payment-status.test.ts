import { describe, expect, it } from 'vitest';
import {
  documentPaymentStatus,
  payableSettlement,
  type PayableAmount,
  type PaymentAmount,
} from '../../../db/payments/payment-status.ts';

const payable = (id: string, amountCents: bigint, status: PayableAmount['status'] = 'pending'): PayableAmount => ({
  id,
  amountCents,
  status,
});
const payment = (
  payableId: string,
  amountCents: bigint,
  status: PaymentAmount['status'] = 'processed',
): PaymentAmount => ({ payableId, amountCents, status });

describe('payable settlement', () => {
  it('counts only processed payments of the payable itself', () => {
    const first = payable('p1', 100_00n);
    expect(payableSettlement(first, [])).toEqual({ paidCents: 0n, balanceCents: 100_00n, status: 'pending' });
    expect(
      payableSettlement(first, [
        payment('p1', 30_00n),
        payment('p1', 50_00n, 'failed'),
        payment('p1', 10_00n, 'in_process'),
        payment('p2', 70_00n),
      ]),
    ).toEqual({ paidCents: 30_00n, balanceCents: 70_00n, status: 'partial' });
    expect(payableSettlement(first, [payment('p1', 60_00n), payment('p1', 40_00n)])).toEqual({
      paidCents: 100_00n,
      balanceCents: 0n,
      status: 'paid',
    });
  });

  it('never shows a negative balance, and keeps a canceled payable canceled', () => {
    expect(payableSettlement(payable('p1', 100_00n), [payment('p1', 120_00n)]).balanceCents).toBe(0n);
    expect(payableSettlement(payable('p1', 100_00n, 'canceled'), [payment('p1', 10_00n)]).status).toBe('canceled');
  });
});

describe('document payment status', () => {
  it('is pending without payables or without processed money', () => {
    expect(documentPaymentStatus([], [])).toBe('pending');
    expect(
      documentPaymentStatus(
        [payable('p1', 100_00n)],
        [payment('p1', 100_00n, 'pending'), payment('p1', 100_00n, 'failed'), payment('p1', 100_00n, 'in_process')],
      ),
    ).toBe('pending');
  });

  it('is partial, then paid, as processed payments cover every payable', () => {
    const payables = [payable('p1', 60_00n), payable('p2', 40_00n)];
    expect(documentPaymentStatus(payables, [payment('p1', 10_00n)])).toBe('partial');
    expect(documentPaymentStatus(payables, [payment('p1', 60_00n)])).toBe('partial');
    expect(documentPaymentStatus(payables, [payment('p1', 60_00n), payment('p2', 15_00n), payment('p2', 25_00n)])).toBe(
      'paid',
    );
  });

  it('groups by payable before summing: a surplus on one payable does not pay another', () => {
    // 100 paid in total against 60 + 40 owed, all of it on the first payable: the second is still unpaid.
    expect(
      documentPaymentStatus(
        [payable('p1', 60_00n), payable('p2', 40_00n)],
        [payment('p1', 60_00n), payment('p1', 40_00n)],
      ),
    ).toBe('partial');
  });

  it('leaves canceled payables out', () => {
    expect(
      documentPaymentStatus([payable('p1', 60_00n), payable('p2', 40_00n, 'canceled')], [payment('p1', 60_00n)]),
    ).toBe('paid');
    expect(documentPaymentStatus([payable('p1', 60_00n, 'canceled')], [])).toBe('pending');
  });
});
