// Which entries of a downloaded package (SAT bulk download) or an e-mailed ZIP (DIAN AttachedDocument) are XML files
// worth parsing. Packages carry junk: macOS resource forks, empty files, text files, ".xml" files that are not XML.
// Everything passed over is counted with its reason, so a sync can say what it skipped. The package itself is read by
// `zip-reader.ts`, within the intake caps; an XML entry is inflated only below the XML cap. Whether a file is XML is read
// in the file's own encoding (`xml-encoding.ts`), as the parser will read it.
import { xmlCap, type IntakeLimits } from './intake-limits.ts';
import { firstCharacter } from './xml-encoding.ts';
import { zipEntries, type ZipSource } from './zip-reader.ts';

export const SKIP_REASONS = [
  'macos_metadata',
  'unreadable',
  'too_large',
  'unsafe_name',
  'empty',
  'not_xml',
  'invalid_document',
  'refused',
  'import_failed',
  'no_fiscal_document',
] as const;
/**
 * `unreadable`: damaged, truncated, encrypted, or compressed with a method other than deflate;
 * `too_large`: past one of the intake caps, which `detail` names; `unsafe_name`: an absolute path or one with `..`;
 * `invalid_document`: XML that does not parse as a fiscal document (e.g. a CFDI 3.3, a CFDI without stamp);
 * `refused`: a fiscal document this company cannot take (another country, a currency outside the service's);
 * `import_failed`: a file whose import failed on every attempt for a reason not foreseen (`detail` says which);
 * `no_fiscal_document`: a message with no XML or ZIP to read (only a PDF, a broken MIME structure), its parts named.
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

/** Why one file was refused, for the reader that refused it to name. */
export type EntryRefusal = Omit<SkippedEntry, 'name'> & { detail: string };

export type SkipCounts = Partial<Record<SkipReason, number>>;

/** True for `__MACOSX/...` entries and AppleDouble `._name` files. */
export function isMacMetadata(name: string): boolean {
  const base = name.split('/').pop() ?? name;
  return name.startsWith('__MACOSX/') || name.includes('/__MACOSX/') || base.startsWith('._');
}

/** Whether a file's name says XML, the one thing that makes a package entry or an attachment worth parsing. */
export const isXmlName = (name: string): boolean => /\.xml$/i.test(name);

/** Sorts a file into an XML file to parse or a skipped entry with its reason. */
export function classifyFile(name: string, bytes: Uint8Array): XmlFile | SkippedEntry {
  if (isMacMetadata(name)) return { name, reason: 'macos_metadata' };
  const first = firstCharacter(bytes);
  if (first === null) return { name, reason: 'empty' };
  if (!isXmlName(name)) return { name, reason: 'not_xml' };
  if (first !== '<') return { name, reason: 'not_xml', detail: 'the content is not XML' };
  return { name, bytes };
}

/** One entry of a package: inflated and sorted only when taken. */
export interface PackageEntry {
  name: string;
  take(): Promise<XmlFile | SkippedEntry>;
}

/**
 * The entries of a package (a ZIP, in memory or on disk), in its order; directories are not entries. Each must be
 * taken, or passed, before the next is asked for. Throws ArchiveRefused when the package as a whole cannot be read.
 */
export async function* packageEntries(source: ZipSource, limits: IntakeLimits): AsyncGenerator<PackageEntry> {
  for await (const entry of zipEntries(source, limits)) {
    if (entry.directory) continue;
    const { name } = entry;
    if (isMacMetadata(name)) {
      yield { name, take: async () => ({ name, reason: 'macos_metadata' }) };
      continue;
    }
    // Named as something else (a PDF, say): passed over without inflating it.
    if (!isXmlName(name)) {
      const reason = entry.declaredSize === 0 ? 'empty' : 'not_xml';
      yield { name, take: async () => ({ name, reason }) };
      continue;
    }
    yield {
      name,
      take: async () => {
        const read = await entry.read(xmlCap('entryBytes', limits));
        return 'bytes' in read ? classifyFile(name, read.bytes) : { name, ...read };
      },
    };
  }
}

/** Adds skipped entries to counts by reason. */
export function countSkips(counts: SkipCounts, skipped: readonly SkippedEntry[]): SkipCounts {
  for (const entry of skipped) counts[entry.reason] = (counts[entry.reason] ?? 0) + 1;
  return counts;
}
