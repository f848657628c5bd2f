// Shape rules for the fiscal keys: DIAN CUFE/CUDE/CUDS (SHA-384 hex) and the SAT folio fiscal (a UUID).
// A receiver cannot recompute a supplier's CUFE (its technical key is not in the XML), so only the shape is checked;
// a documento soporte's CUDS is recomputed when the service holds the PIN of the software that issued it.

import { createHash } from 'node:crypto';

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

/** What a documento soporte's CUDS is computed from (DIAN Anexo Técnico Documento Soporte). */
export interface CudsParts {
  /** NumDS: `cbc:ID`, prefix and number. */
  documentNumber: string;
  /** FecDS: `cbc:IssueDate`, YYYY-MM-DD. */
  issueDate: string;
  /** HorDS: `cbc:IssueTime` as written, HH:MM:SS-05:00. */
  issueTime: string;
  /** ValDS: `LineExtensionAmount`, 2 decimals. */
  subtotal: string;
  /** ValImp1: the IVA (tax scheme 01) of the document, 2 decimals (0.00 when none). */
  iva: string;
  /** ValTot: `PayableAmount`, 2 decimals. */
  total: string;
  /** NumSNO: the identification of the seller who is not obliged to invoice, without check digit. */
  sellerId: string;
  /** NITABS: the NIT of the acquirer (the company issuing the document), without check digit. */
  buyerNit: string;
  /** The PIN of the software that issued it (never in the XML). */
  softwarePin: string;
  /** TipoAmbiente: `ProfileExecutionID`, 1 production, 2 test. */
  environment: string;
}

/** The scheme a documento soporte names its CUDS with (`cbc:UUID @schemeName`). */
export const CUDS_SCHEME = 'CUDS-SHA384';

/**
 * The text a CUDS hashes: NumDS + FecDS + HorDS + ValDS + CodImp1 ("01") + ValImp1 + ValTot + NumSNO + NITABS +
 * Software-PIN + TipoAmbiente, without separators. Unlike the CUFE it carries one tax only, and the seller before
 * the acquirer that signs it.
 */
export function cudsComposition(parts: CudsParts): string {
  return [
    parts.documentNumber,
    parts.issueDate,
    parts.issueTime,
    parts.subtotal,
    '01',
    parts.iva,
    parts.total,
    parts.sellerId,
    parts.buyerNit,
    parts.softwarePin,
    parts.environment,
  ].join('');
}

/** A documento soporte's CUDS: SHA-384 of its composition, 96 lowercase hexadecimal characters. */
export function cudsOf(parts: CudsParts): string {
  return createHash('sha384').update(cudsComposition(parts), 'utf8').digest('hex');
}
