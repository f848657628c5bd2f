// The exchange rate a fiscal document states, checked for direction: from the document's currency to the
// country's own currency, the only rate that turns its amounts into local money.

import { FiscalDocumentError } from './errors.ts';
import { isDecimal, normalizeDecimal } from './money.ts';
import type { FiscalCountry, FiscalExchangeRate } from './normalized-document.ts';

/** The currency amounts are kept in locally: what a foreign-currency document's rate must lead to. */
export const LOCAL_CURRENCY: Record<FiscalCountry, string> = { COL: 'COP', MEX: 'MXN' };

export interface StatedRate {
  rate: string;
  sourceCurrency: string;
  targetCurrency: string;
  date: string | null;
  /** Readable path of the element stating the rate, for the refusal. */
  element: string;
}

/**
 * The rate of a document in `documentCurrency`, or null when it needs none (a document in the local currency may
 * state the identity rate, 1). A rate in the other direction or between other currencies is refused: converting
 * with it would be off by the square of the rate, or meaningless.
 */
export function checkedExchangeRate(
  stated: StatedRate,
  documentCurrency: string,
  country: FiscalCountry,
  file: string,
): FiscalExchangeRate | null {
  const local = LOCAL_CURRENCY[country];
  const { rate, sourceCurrency, targetCurrency, element } = stated;
  if (!isDecimal(rate) || !/[1-9]/.test(rate) || rate.trim().startsWith('-')) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      element,
      `the exchange rate must be a decimal number greater than zero, found ${JSON.stringify(rate)}`,
    );
  }
  const pair = `${sourceCurrency} → ${targetCurrency}`;
  if (documentCurrency === local) {
    if (sourceCurrency === local && targetCurrency === local && normalizeDecimal(rate) === '1') return null;
    throw mismatch(
      file,
      element,
      `the document is in ${local}, which needs no exchange rate, but it states ${pair} at ${rate}`,
    );
  }
  if (sourceCurrency === documentCurrency && targetCurrency === local)
    return { rate: normalizeDecimal(rate), sourceCurrency, targetCurrency, date: stated.date };
  const expected = `${documentCurrency} → ${local}`;
  throw mismatch(
    file,
    element,
    sourceCurrency === local && targetCurrency === documentCurrency
      ? `the rate is stated the other way round (${pair}); a document in ${documentCurrency} must state ${expected}`
      : `the rate is between other currencies (${pair}); a document in ${documentCurrency} must state ${expected}`,
  );
}

function mismatch(file: string, element: string, detail: string): FiscalDocumentError {
  return new FiscalDocumentError('exchange_rate_mismatch', file, element, detail);
}
