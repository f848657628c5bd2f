/** Minor units to the decimal amount the API shows, through exact string arithmetic (never float division). */
export function centsToAmount(cents: bigint | number): number {
  const value = BigInt(cents);
  const sign = value < 0n ? '-' : '';
  const absolute = value < 0n ? -value : value;
  return Number(`${sign}${absolute / 100n}.${(absolute % 100n).toString().padStart(2, '0')}`);
}

/** A decimal string from the database (quantities, rates) as a JSON number. */
export function decimalToNumber(value: string | number | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}

export const isoDate = (value: Date | string | null | undefined): string | null =>
  value === null || value === undefined
    ? null
    : typeof value === 'string'
      ? value.slice(0, 10)
      : value.toISOString().slice(0, 10);

export const isoDateTime = (value: Date | null | undefined): string | null => (value ? value.toISOString() : null);
