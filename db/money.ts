import { p } from '@mikro-orm/core';

/** The currencies of the spec. Amounts are stored beside one of them as bigint minor units (`*Cents`). */
export const CURRENCIES = ['USD', 'COP', 'MXN', 'EUR'] as const;
export type Currency = (typeof CURRENCIES)[number];

/** A currency column, backed by one PostgreSQL enum shared by every table. */
export function currencyProperty() {
  return p.enum(CURRENCIES).nativeEnumName('currency');
}
