// The caps on what fiscal intake reads: e-mailed messages and their attachments, ZIP archives (nested ones too) and
// SAT packages. Every size is counted as the bytes are read or inflated, never taken from what a header declares, so a
// small input cannot make the worker hold or inflate more than these. Each cap has an environment variable, which the
// worker reads at startup (`services/fiscal-sync/intake-settings.ts`). A size cap is the first size refused: a file of
// exactly 20 MB does not pass a 20 MB cap. A count cap (entries, nesting) is the most allowed. XML files are held to the
// parser's cap (`MAX_FISCAL_XML_BYTES`, 10 MB) as they are read, not only when parsed.
import { MAX_FISCAL_XML_BYTES } from './xml.ts';

export interface IntakeLimits {
  /** Largest mailbox item (an `.eml` message, a dropped `.zip` or `.xml`), as stored. */
  messageBytes: number;
  /** Largest attachment of a message, decoded. */
  attachmentBytes: number;
  /** Largest archive entry, inflated. */
  entryBytes: number;
  /** Most an archive may inflate to, its entries and the archives nested in it together. */
  archiveBytes: number;
  /** Most entries an archive may list. */
  archiveEntries: number;
  /** How deep messages and archives may nest (a message's attachment is one level, a ZIP in it another). */
  nestingDepth: number;
  /** Largest SAT package download. */
  packageBytes: number;
}

type Limit = keyof IntakeLimits;

const MB = 1024 * 1024;

/** Each cap's default, environment variable and name in refusals. */
export const INTAKE_LIMITS: Record<Limit, { default: number; variable: string; label: string }> = {
  // Also what bounds a quoted-printable part, which mailparser's decoder (libqp) holds whole before decoding.
  messageBytes: { default: 16 * MB, variable: 'INTAKE_MAX_MESSAGE_BYTES', label: 'per-message' },
  attachmentBytes: { default: 12 * MB, variable: 'INTAKE_MAX_ATTACHMENT_BYTES', label: 'per-attachment' },
  // A CFDI or an AttachedDocument is a few KB; an invoice PDF a few hundred.
  entryBytes: { default: 20 * MB, variable: 'INTAKE_MAX_ENTRY_BYTES', label: 'per-entry' },
  // A SAT package of 200,000 CFDI inflates to about 1 GB.
  archiveBytes: { default: 2048 * MB, variable: 'INTAKE_MAX_ARCHIVE_BYTES', label: 'per-archive' },
  archiveEntries: { default: 250_000, variable: 'INTAKE_MAX_ARCHIVE_ENTRIES', label: 'per-archive entry' },
  nestingDepth: { default: 4, variable: 'INTAKE_MAX_NESTING_DEPTH', label: 'nesting' },
  packageBytes: { default: 512 * MB, variable: 'INTAKE_MAX_PACKAGE_BYTES', label: 'per-package' },
};

export const DEFAULT_INTAKE_LIMITS = Object.fromEntries(
  Object.entries(INTAKE_LIMITS).map(([limit, { default: value }]) => [limit, value]),
) as unknown as IntakeLimits;

type SizeLimit = Extract<Limit, `${string}Bytes`>;

/** Whether a size is refused by a cap: it reaches it. */
export const reachesCap = (size: number, limit: SizeLimit, limits: Pick<IntakeLimits, SizeLimit>): boolean =>
  size >= limits[limit];

/**
 * How a refusal names the cap it hit: `at or past the 20 MB per-entry cap (INTAKE_MAX_ENTRY_BYTES)` for a size,
 * `past the 4 nesting cap (INTAKE_MAX_NESTING_DEPTH)` for a count.
 */
export function pastCap<L extends Limit>(limit: L, limits: Pick<IntakeLimits, L>): string {
  const { variable, label } = INTAKE_LIMITS[limit];
  const value = limits[limit];
  if (limit.endsWith('Bytes')) return `at or past the ${formatBytes(value)} ${label} cap (${variable})`;
  return `past the ${value} ${label} cap (${variable})`;
}

/** A size cap as a reader applies it: the first size refused, and how a refusal names it. */
export interface SizeCap {
  bytes: number;
  named: string;
}

export const sizeCap = (limit: SizeLimit, limits: IntakeLimits): SizeCap => ({
  bytes: limits[limit],
  named: pastCap(limit, limits),
});

/** The cap on an XML file read from an archive entry or an attachment: the XML cap, or that cap when it is lower. */
export function xmlCap(within: 'entryBytes' | 'attachmentBytes' | 'messageBytes', limits: IntakeLimits): SizeCap {
  if (limits[within] < MAX_FISCAL_XML_BYTES) return sizeCap(within, limits);
  return {
    bytes: MAX_FISCAL_XML_BYTES,
    named: `at or past the ${formatBytes(MAX_FISCAL_XML_BYTES)} XML cap (the parser's, MAX_FISCAL_XML_BYTES)`,
  };
}

function formatBytes(bytes: number): string {
  if (bytes % MB === 0) return `${bytes / MB} MB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} bytes`;
}
