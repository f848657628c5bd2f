// Which entries of a downloaded package (SAT bulk download) or an e-mailed ZIP (DIAN AttachedDocument) are XML files
// worth parsing. Packages carry junk: macOS resource forks, empty files, text files, ".xml" files that are not XML.
// Everything passed over is counted with its reason, so a sync can say what it skipped.
import type { ZipEntry } from './zip.ts';

export const SKIP_REASONS = [
  'macos_metadata',
  'unreadable',
  'empty',
  'not_xml',
  'invalid_document',
  'refused',
] as const;
/**
 * `invalid_document`: XML that does not parse as a fiscal document (e.g. a CFDI 3.3, a CFDI without stamp);
 * `refused`: a fiscal document this company cannot take (another country, a currency outside the service's).
 */
export type SkipReason = (typeof SKIP_REASONS)[number];

export interface XmlFile {
  name: string;
  bytes: Uint8Array;
}

export interface SkippedEntry {
  name: string;
  reason: SkipReason;
  detail?: string;
}

export type SkipCounts = Partial<Record<SkipReason, number>>;

const BOM = [0xef, 0xbb, 0xbf];

/** True for `__MACOSX/...` entries and AppleDouble `._name` files. */
export function isMacMetadata(name: string): boolean {
  const base = name.split('/').pop() ?? name;
  return name.startsWith('__MACOSX/') || name.includes('/__MACOSX/') || base.startsWith('._');
}

/** The first byte after a UTF-8 BOM and whitespace, or null when there is none. */
function firstSignificantByte(bytes: Uint8Array): number | null {
  let at = bytes[0] === BOM[0] && bytes[1] === BOM[1] && bytes[2] === BOM[2] ? 3 : 0;
  while (
    at < bytes.byteLength &&
    (bytes[at] === 0x20 || bytes[at] === 0x09 || bytes[at] === 0x0a || bytes[at] === 0x0d)
  )
    at++;
  return at < bytes.byteLength ? bytes[at]! : null;
}

/** Sorts a file into an XML file to parse or a skipped entry with its reason. */
export function classifyFile(name: string, bytes: Uint8Array | null): XmlFile | SkippedEntry {
  if (isMacMetadata(name)) return { name, reason: 'macos_metadata' };
  if (bytes === null) return { name, reason: 'unreadable' };
  const first = firstSignificantByte(bytes);
  if (first === null) return { name, reason: 'empty' };
  if (!/\.xml$/i.test(name)) return { name, reason: 'not_xml' };
  if (first !== 0x3c) return { name, reason: 'not_xml', detail: 'the content is not XML' };
  return { name, bytes };
}

/** The XML files of a package and the entries skipped; directories are not entries. */
export function xmlFilesOf(entries: ZipEntry[]): { files: XmlFile[]; skipped: SkippedEntry[] } {
  const files: XmlFile[] = [];
  const skipped: SkippedEntry[] = [];
  for (const entry of entries) {
    if (entry.directory) continue;
    const sorted = classifyFile(entry.name, entry.problem ? null : entry.data);
    if ('bytes' in sorted) files.push(sorted);
    else skipped.push(entry.problem ? { ...sorted, detail: entry.problem } : sorted);
  }
  return { files, skipped };
}

/** Adds skipped entries to counts by reason. */
export function countSkips(counts: SkipCounts, skipped: readonly SkippedEntry[]): SkipCounts {
  for (const entry of skipped) counts[entry.reason] = (counts[entry.reason] ?? 0) + 1;
  return counts;
}
