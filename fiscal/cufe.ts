// Shape rules for the fiscal keys: DIAN CUFE/CUDE (SHA-384 hex) and the SAT folio fiscal (a UUID).
// A receiver cannot recompute a supplier's CUFE (its technical key is not in the XML), so only the shape is checked.

/** A CUFE or CUDE: SHA-384 as 96 hexadecimal characters. */
export const CUFE_PATTERN = /^[a-fA-F0-9]{96}$/;

/** A SHA-1 CUFE (40 hexadecimal characters): DIAN's formats before UBL 2.1 (2019), no longer accepted. */
export const LEGACY_CUFE_PATTERN = /^[a-fA-F0-9]{40}$/;

/** A SAT folio fiscal (TimbreFiscalDigital UUID). */
export const SAT_UUID_PATTERN = /^[a-fA-F0-9]{8}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{4}-[a-fA-F0-9]{12}$/;

/** The CUFE/CUDE in lowercase, or null when it is not 96 hexadecimal characters. */
export function normalizeCufe(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return CUFE_PATTERN.test(trimmed) ? trimmed.toLowerCase() : null;
}

/** The SAT UUID in lowercase, or null when it is not a UUID. */
export function normalizeSatUuid(value: string | null): string | null {
  const trimmed = value?.trim() ?? '';
  return SAT_UUID_PATTERN.test(trimmed) ? trimmed.toLowerCase() : null;
}
