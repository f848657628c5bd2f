// The exchange rate a fiscal document states, checked for direction: from the document's currency to the
// country's own currency, the only rate that turns its amounts into local money. A DIAN document in COP may state
// another rate as information; it is kept, never applied.

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
  checkRateValue(stated, file);
  const pair = `${sourceCurrency} → ${targetCurrency}`;
  if (documentCurrency === local) {
    if (sourceCurrency === local && targetCurrency === local && normalizeDecimal(rate) === '1') return null;
    throw mismatch(
      file,
      element,
      `the document is in ${local}, which needs no exchange rate, but it states ${pair} at ${rate}`,
    );
  }
  return convertingRate(stated, documentCurrency, local, file);
}

/** What a DIAN document states of exchange: the rate that converts its amounts to COP, or one given as information. */
export interface DianExchange {
  /** From the document's currency to COP: required of a document in another currency, null for a COP one. */
  exchangeRate: FiscalExchangeRate | null;
  /** A rate a COP document states besides (e.g. COP → USD for an invoice priced in dollars): kept, never applied. */
  statedExchangeRate: FiscalExchangeRate | null;
}

/**
 * A DIAN document's `cac:PaymentExchangeRate`, read as DIAN reads it: required when the document is not in COP, and
 * then it must lead from the document's currency to COP (the only rate that converts the amounts it states). A COP
 * document needs none and may state one anyway: the identity (COP → COP at 1) is dropped, any other pair is kept as
 * information. Refused only what contradicts itself: a foreign-currency document without a rate, a rate that does not
 * convert its amounts, a currency worth other than 1 of itself, or a rate that is not a number above zero.
 */
export function dianExchange(
  stated: StatedRate | null,
  documentCurrency: string,
  file: string,
  rootPath: string,
): DianExchange {
  const local = LOCAL_CURRENCY.COL;
  if (stated === null) {
    if (documentCurrency === local) return { exchangeRate: null, statedExchangeRate: null };
    throw new FiscalDocumentError(
      'missing_element',
      file,
      `${rootPath}/cac:PaymentExchangeRate`,
      `a document in ${documentCurrency} must state its exchange rate to ${local}, as DIAN requires`,
    );
  }
  checkRateValue(stated, file);
  if (documentCurrency !== local)
    return { exchangeRate: convertingRate(stated, documentCurrency, local, file), statedExchangeRate: null };
  const { rate, sourceCurrency, targetCurrency, element } = stated;
  if (sourceCurrency === targetCurrency) {
    if (normalizeDecimal(rate) === '1') return { exchangeRate: null, statedExchangeRate: null };
    throw mismatch(file, element, `one ${sourceCurrency} cannot be worth ${rate} ${targetCurrency}`);
  }
  return {
    exchangeRate: null,
    statedExchangeRate: { rate: normalizeDecimal(rate), sourceCurrency, targetCurrency, date: stated.date },
  };
}

function checkRateValue({ rate, element }: StatedRate, file: string): void {
  if (!isDecimal(rate) || !/[1-9]/.test(rate) || rate.trim().startsWith('-')) {
    throw new FiscalDocumentError(
      'invalid_value',
      file,
      element,
      `the exchange rate must be a decimal number greater than zero, found ${JSON.stringify(rate)}`,
    );
  }
}

/** The rate of a document in a foreign currency: from that currency to the local one, or refused. */
function convertingRate(stated: StatedRate, documentCurrency: string, local: string, file: string): FiscalExchangeRate {
  const { rate, sourceCurrency, targetCurrency, element } = stated;
  if (sourceCurrency === documentCurrency && targetCurrency === local)
    return { rate: normalizeDecimal(rate), sourceCurrency, targetCurrency, date: stated.date };
  const pair = `${sourceCurrency} → ${targetCurrency}`;
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
