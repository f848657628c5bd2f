import type { IntakeLimits } from '../../fiscal/intake-limits.ts';
import { mailboxItemEntries } from '../../fiscal/mail-documents.ts';
import { packageEntries, type PackageEntry, type SkippedEntry, type XmlFile } from '../../fiscal/package-entries.ts';
import type { ZipSource } from '../../fiscal/zip-reader.ts';

export interface FoundFiles {
  files: XmlFile[];
  skipped: SkippedEntry[];
}

/** Takes every entry, in order, sorting the XML files from the entries skipped. */
async function takeAll(entries: AsyncIterable<PackageEntry>): Promise<FoundFiles> {
  const files: XmlFile[] = [];
  const skipped: SkippedEntry[] = [];
  for await (const entry of entries) {
    const taken = await entry.take();
    if ('bytes' in taken) files.push(taken);
    else skipped.push(taken);
  }
  return { files, skipped };
}

/** The XML files of a package and the entries skipped, every entry taken. */
export const xmlFilesOfPackage = (source: ZipSource, limits: IntakeLimits): Promise<FoundFiles> =>
  takeAll(packageEntries(source, limits));

/** The XML files of a mailbox item (a message, a dropped ZIP or XML) and the entries skipped, every entry taken. */
export const documentsInMailboxItem = (name: string, bytes: Uint8Array, limits?: IntakeLimits): Promise<FoundFiles> =>
  takeAll(mailboxItemEntries({ name, bytes }, limits));
