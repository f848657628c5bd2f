// The fiscal XML inside what a supplier e-mails: a message whose attachment is a ZIP holding the AttachedDocument XML
// and its PDF. ZIPs may be nested and may hold `.eml` messages in turn; depth is bounded. PDFs are the graphic
// representation and are passed over without counting; other mail parts (signatures, logos) are not looked at.
import { attachmentsOf, parseMail } from './mime.ts';
import { classifyFile, type SkippedEntry, type XmlFile } from './package-entries.ts';
import { looksLikeZip, readZip, ZipFormatError } from './zip.ts';

const MAX_NESTING = 4;

export interface MailDocuments {
  files: XmlFile[];
  skipped: SkippedEntry[];
}

/** The XML files in one mailbox item: an `.eml` message, or a bare `.zip` or `.xml` dropped in the mailbox. */
export function documentsInMailboxItem(name: string, bytes: Uint8Array): MailDocuments {
  const found: MailDocuments = { files: [], skipped: [] };
  if (/\.(zip|xml)$/i.test(name)) walkFile(name, bytes, found, 0, true);
  else walkMessage(name, bytes, found, 0);
  return found;
}

function walkMessage(name: string, bytes: Uint8Array, found: MailDocuments, depth: number): void {
  for (const attachment of attachmentsOf(parseMail(bytes)))
    walkFile(`${name}/${attachment.fileName}`, attachment.data, found, depth + 1, false);
}

function walkFile(name: string, bytes: Uint8Array, found: MailDocuments, depth: number, counted: boolean): void {
  if (depth > MAX_NESTING) {
    found.skipped.push({ name, reason: 'unreadable', detail: 'nested too deep' });
    return;
  }
  if (/\.zip$/i.test(name) || looksLikeZip(bytes)) return walkZip(name, bytes, found, depth);
  if (/\.eml$/i.test(name)) return walkMessage(name, bytes, found, depth);
  if (/\.pdf$/i.test(name)) return;
  // Mail parts that are neither ZIP nor XML (a signature, a logo) are not the supplier's document: not counted.
  if (!counted && !/\.xml$/i.test(name)) return;
  const sorted = classifyFile(name, bytes);
  if ('bytes' in sorted) found.files.push(sorted);
  else found.skipped.push(sorted);
}

function walkZip(name: string, bytes: Uint8Array, found: MailDocuments, depth: number): void {
  let entries;
  try {
    entries = readZip(bytes);
  } catch (error) {
    if (!(error instanceof ZipFormatError)) throw error;
    found.skipped.push({ name, reason: 'unreadable', detail: error.message });
    return;
  }
  for (const entry of entries) {
    if (entry.directory) continue;
    const inner = `${name}/${entry.name}`;
    if (entry.problem || !entry.data)
      found.skipped.push({ name: inner, reason: 'unreadable', detail: entry.problem ?? 'corrupt' });
    else walkFile(inner, entry.data, found, depth + 1, true);
  }
}
