import { describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../../db/accounting/accounting-entry.entity.ts';
import type { Document } from '../../../db/documents/document.entity.ts';
import {
  convertCents,
  localAmounts,
  localVoucher,
  type VoucherAmount,
} from '../../../services/accounting/local-amounts.ts';

const debit = (cents: bigint): VoucherAmount => ({ side: 'debit', cents });
const credit = (cents: bigint): VoucherAmount => ({ side: 'credit', cents });
const sides = (amounts: VoucherAmount[], local: bigint[]) => ({
  debits: local.reduce((sum, value, index) => (amounts[index]!.side === 'debit' ? sum + value : sum), 0n),
  credits: local.reduce((sum, value, index) => (amounts[index]!.side === 'credit' ? sum + value : sum), 0n),
});

describe('converting cents at an exchange rate', () => {
  it('multiplies exactly and rounds half up to whole cents', () => {
    expect(convertCents(100n, '3917.4567')).toBe(391_746n);
    expect(convertCents(1n, '0.5')).toBe(1n);
    expect(convertCents(1n, '0.49999999')).toBe(0n);
    expect(convertCents(3n, '0.5')).toBe(2n);
    expect(convertCents(-3n, '0.5')).toBe(-2n);
    expect(convertCents(33_333n, '3917.456700')).toBe(130_580_584n);
    // Beyond what a double holds exactly: 2^53 + 1 cents at 1.
    expect(convertCents(9_007_199_254_740_993n, '1')).toBe(9_007_199_254_740_993n);
  });
});

describe('local amounts of a voucher', () => {
  it('puts the rounding difference on the largest debit when the debits fall short, and balances', () => {
    // USD 1190.00 at 3917.4567: three items, a tax, a withholding and two installments.
    const amounts = [
      debit(33_333n),
      debit(33_333n),
      debit(33_334n),
      debit(19_000n),
      credit(2_500n),
      credit(58_250n),
      credit(58_250n),
    ];
    // Rounded line by line: debits 466177347, credits 466177348.
    const local = localAmounts(amounts, '3917.4567');
    expect(local).toEqual([
      130_580_584n,
      130_580_584n,
      130_584_503n, // 130584502 + the cent the debits lacked
      74_431_677n,
      9_793_642n,
      228_191_853n,
      228_191_853n,
    ]);
    expect(sides(amounts, local)).toEqual({ debits: 466_177_348n, credits: 466_177_348n });
  });

  it('puts it on the first of the largest credits when the credits fall short', () => {
    const amounts = [debit(10_001n), credit(3_333n), credit(3_334n), credit(3_334n)];
    // Rounded line by line: debits 171251, credits 171250.
    const local = localAmounts(amounts, '17.1234');
    expect(local).toEqual([171_251n, 57_072n, 57_090n, 57_089n]);
    expect(sides(amounts, local)).toEqual({ debits: 171_251n, credits: 171_251n });
  });

  it('changes nothing when the lines round to a balance', () => {
    expect(localAmounts([debit(100n), credit(100n)], '3917.4567')).toEqual([391_746n, 391_746n]);
  });

  it('keeps the converted difference of a voucher that does not balance, taking it off the other side when one is empty', () => {
    const amounts = [debit(1n), debit(1n), debit(1n)];
    // 0.5 each rounds to 1: 3 cents of debits, where 3 × 0.5 = 1.5 rounds to 2.
    const local = localAmounts(amounts, '0.5');
    expect(local).toEqual([0n, 1n, 1n]);
    expect(sides(amounts, local).debits).toBe(convertCents(3n, '0.5'));
  });
});

describe("a document's voucher in its local currency", () => {
  const journal = {
    erp_journal_entry_lines: [
      { source: 'agent', book_account_external_id: 'ba-5110', debit_cents: 10_001, credit_cents: null },
      { source: 'agent', book_account_external_id: 'ba-2365', debit_cents: null, credit_cents: 3_333 },
    ],
    payment_lines: [
      { book_account_external_id: 'ba-2205', amount_cents: 3_334, due_date: '2026-04-01', quota_number: 1 },
      { book_account_external_id: 'ba-2205', amount_cents: 3_334, due_date: '2026-05-01', quota_number: 2 },
    ],
  } as JournalEntry;
  const document = (fields: Partial<Document>) =>
    ({
      country: 'MEX',
      currency: 'USD',
      exchangeRate: null,
      exchangeRateSourceCurrency: null,
      exchangeRateTargetCurrency: null,
      exchangeRateDate: null,
      ...fields,
    }) as Document;

  it('converts a foreign-currency document at its rate, the payment lines as credits', () => {
    const local = localVoucher(
      document({
        exchangeRate: '17.123400',
        exchangeRateSourceCurrency: 'USD',
        exchangeRateTargetCurrency: 'MXN',
        exchangeRateDate: '2026-03-20',
      }),
      journal,
    );
    expect(local).toEqual({
      currency: 'USD',
      exchangeRate: { rate: 17.1234, source_currency: 'USD', target_currency: 'MXN', date: '2026-03-20' },
      lines: [
        { debit: 171_251n, credit: null },
        { debit: null, credit: 57_072n },
      ],
      paymentLines: [57_090n, 57_089n],
    });
  });

  it('repeats the amounts of a document in the local currency, and leaves them unknown without a rate', () => {
    expect(localVoucher(document({ currency: 'MXN' }), journal)).toEqual({
      currency: 'MXN',
      exchangeRate: null,
      lines: [
        { debit: 10_001n, credit: null },
        { debit: null, credit: 3_333n },
      ],
      paymentLines: [3_334n, 3_334n],
    });
    expect(localVoucher(document({}), journal)).toEqual({
      currency: 'USD',
      exchangeRate: null,
      lines: [
        { debit: null, credit: null },
        { debit: null, credit: null },
      ],
      paymentLines: [null, null],
    });
  });
});
