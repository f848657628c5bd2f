// A voucher in the company's own currency, for an ERP that keeps its books in it: every amount times the document's
// exchange rate, rounded half up to cents per line, then the cents rounding lost or gained put on one line, so that
// the local voucher balances exactly when the voucher does. Integer arithmetic only.

import type { JournalEntry } from '../../db/accounting/accounting-entry.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { LOCAL_CURRENCY } from '../../fiscal/exchange-rate.ts';
import { normalizeDecimal } from '../../fiscal/money.ts';
import { isoDate } from '../../platform/money.ts';

export type Side = 'debit' | 'credit';

/** An amount of the voucher, in the document's currency (cents): a journal line, or a payment line (a credit). */
export interface VoucherAmount {
  side: Side;
  cents: bigint;
}

/** `amount × rate` in cents, rounded half away from zero; the rate is a decimal string, taken exactly. */
export function convertCents(cents: bigint, rate: string): bigint {
  const [whole = '0', fraction = ''] = normalizeDecimal(rate).split('.');
  const unit = 10n ** BigInt(fraction.length);
  const product = cents * BigInt(`${whole}${fraction}`);
  const magnitude = product < 0n ? -product : product;
  const rounded = (magnitude * 2n + unit) / (2n * unit);
  return product < 0n ? -rounded : rounded;
}

const total = (amounts: VoucherAmount[], side: Side, pick: (index: number) => bigint) =>
  amounts.reduce((sum, amount, index) => (amount.side === side ? sum + pick(index) : sum), 0n);

/** The index of the largest amount of a side (the first of equals), or -1 when the side has none. */
function largest(amounts: VoucherAmount[], side: Side): number {
  let found = -1;
  amounts.forEach((amount, index) => {
    if (amount.side === side && (found === -1 || amount.cents > amounts[found]!.cents)) found = index;
  });
  return found;
}

/**
 * Each amount converted at `rate`, half up, then adjusted so that local debits − local credits is the voucher's own
 * difference converted: 0 for a balanced voucher. The difference goes on the largest line of the side that is short
 * (or comes off the largest of the other side, when the short one has no line).
 */
export function localAmounts(amounts: VoucherAmount[], rate: string): bigint[] {
  const local = amounts.map((amount) => convertCents(amount.cents, rate));
  const cents = (index: number) => amounts[index]!.cents;
  const own = (index: number) => local[index]!;
  const wanted = convertCents(total(amounts, 'debit', cents) - total(amounts, 'credit', cents), rate);
  const gap = total(amounts, 'debit', own) - total(amounts, 'credit', own) - wanted;
  if (gap === 0n) return local;
  const short: Side = gap > 0n ? 'credit' : 'debit';
  const magnitude = gap > 0n ? gap : -gap;
  const onShort = largest(amounts, short);
  const index = onShort === -1 ? largest(amounts, short === 'debit' ? 'credit' : 'debit') : onShort;
  local[index] = own(index) + (onShort === -1 ? -magnitude : magnitude);
  return local;
}

/** The exchange rate as documents show it (`exchange_rate`). */
export interface ExchangeRateJson {
  rate: number;
  source_currency: NonNullable<Document['exchangeRateSourceCurrency']>;
  target_currency: NonNullable<Document['exchangeRateTargetCurrency']>;
  date: string | null;
}

type CurrencyFacts = Pick<
  Document,
  | 'country'
  | 'currency'
  | 'exchangeRate'
  | 'exchangeRateSourceCurrency'
  | 'exchangeRateTargetCurrency'
  | 'exchangeRateDate'
>;

/** The voucher's currencies, and its amounts in the local currency: `null` ones when they cannot be known. */
export interface LocalVoucher {
  currency: Document['currency'];
  exchangeRate: ExchangeRateJson | null;
  /** Per journal line: its local debit or credit (the other is null). */
  lines: { debit: bigint | null; credit: bigint | null }[];
  /** Per payment line. */
  paymentLines: (bigint | null)[];
}

/**
 * The local amounts of a document's voucher: converted at the document's rate when it is in a foreign currency and
 * states one, the voucher's own amounts when it is in the local currency, null when it is in a foreign one without a
 * rate (the ERP must apply its own).
 */
export function localVoucher(document: CurrencyFacts, journal: JournalEntry): LocalVoucher {
  // Stored JSON: tolerate a voucher without lines.
  const lines = journal.erp_journal_entry_lines ?? [];
  const paymentLines = journal.payment_lines ?? [];
  const amounts: VoucherAmount[] = [
    ...lines.map((line) =>
      line.debit_cents === null || line.debit_cents === undefined
        ? { side: 'credit' as const, cents: BigInt(line.credit_cents ?? 0) }
        : { side: 'debit' as const, cents: BigInt(line.debit_cents) },
    ),
    ...paymentLines.map((line) => ({ side: 'credit' as const, cents: BigInt(line.amount_cents) })),
  ];
  const { exchangeRate: rate, exchangeRateSourceCurrency: source, exchangeRateTargetCurrency: target } = document;
  const inLocal = document.currency === LOCAL_CURRENCY[document.country];
  const converted = rate && source && target && !inLocal;
  const local: (bigint | null)[] = converted
    ? localAmounts(amounts, rate)
    : amounts.map((amount) => (inLocal ? amount.cents : null));
  return {
    currency: document.currency,
    exchangeRate: converted
      ? {
          rate: Number(rate),
          source_currency: source,
          target_currency: target,
          date: isoDate(document.exchangeRateDate ?? null),
        }
      : null,
    lines: lines.map((_, index) => {
      const amount = local[index] ?? null;
      return amounts[index]!.side === 'debit' ? { debit: amount, credit: null } : { debit: null, credit: amount };
    }),
    paymentLines: paymentLines.map((_, index) => local[lines.length + index] ?? null),
  };
}
