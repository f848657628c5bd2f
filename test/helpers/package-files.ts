import type { IntakeLimits } from '../../fiscal/intake-limits.ts';
import { packageEntries, type SkippedEntry, type XmlFile } from '../../fiscal/package-entries.ts';
import type { ZipSource } from '../../fiscal/zip-reader.ts';

/** The XML files of a package and the entries skipped, every entry taken. */
export async function xmlFilesOfPackage(
  source: ZipSource,
  limits: IntakeLimits,
): Promise<{ files: XmlFile[]; skipped: SkippedEntry[] }> {
  const files: XmlFile[] = [];
  const skipped: SkippedEntry[] = [];
  for await (const entry of packageEntries(source, limits)) {
    const taken = await entry.take();
    if ('bytes' in taken) files.push(taken);
    else skipped.push(taken);
  }
  return { files, skipped };
}
