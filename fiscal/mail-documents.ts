// The fiscal XML inside what a supplier e-mails: a message whose attachment is a ZIP holding the AttachedDocument XML
// and its PDF. ZIPs may be nested and may hold `.eml` messages in turn, and a message may carry the one it forwards;
// nesting is capped, like every size read on the way (`intake-limits.ts`). PDFs are the graphic representation and are
// passed over without reading; other mail parts (signatures, logos) are not looked at. A refusal skips that one file.
//
// A mailbox item is walked as entries taken one at a time, as a SAT package is: an XML entry of a ZIP is inflated (below
// the XML cap) only when it is taken, and let go once imported, before the next is inflated. What is held at once is
// the path down to the entry: the message's kept attachments (no more than the message itself), and each nested ZIP
// or message being walked (below the attachment or entry cap), a few tens of MB at most whatever the input inflates to.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { storableName, storableText } from './storable-text.ts';
import { DEFAULT_INTAKE_LIMITS, pastCap, reachesCap, xmlCap, type IntakeLimits } from './intake-limits.ts';
import { mailAttachments } from './mail-reader.ts';
import {
  classifyFile,
  isMacMetadata,
  isXmlName,
  type PackageEntry,
  type EntryRefusal,
  type SkippedEntry,
} from './package-entries.ts';
import {
  ArchiveRefused,
  EntryRefused,
  looksLikeZip,
  newBudget,
  zipEntries,
  type InflateBudget,
  type ZipEntryHandle,
  type ZipSource,
} from './zip-reader.ts';

/** A mailbox item: a file (a Maildir message, a downloaded IMAP message, a dropped `.zip` or `.xml`), or bytes. */
export type MailboxItemSource = { name: string } & ({ path: string } | { bytes: Uint8Array });

interface Walk {
  limits: IntakeLimits;
  /** The parts the messages carried, as `name (type)`: what a refusal of a message without documents names. */
  parts: string[];
}

// Outlook's rich-text wrapper: the files inside are not MIME parts, and nothing here unpacks it.
const TNEF = { type: 'application/ms-tnef', name: /^winmail\.dat$/i };

const refused = (name: string, refusal: Omit<SkippedEntry, 'name'>): PackageEntry => {
  const entry = { ...refusal, name };
  return { name, take: async () => entry };
};

/**
 * The entries of one mailbox item, an `.eml` message or a bare `.zip` or `.xml` dropped in the mailbox, in order: each
 * XML file to import or file passed over, read when taken. Each entry must be taken, or passed, before the next is
 * asked for. The worker passes the caps its environment sets; without them, the defaults.
 */
export async function* mailboxItemEntries(
  item: MailboxItemSource,
  limits: IntakeLimits = DEFAULT_INTAKE_LIMITS,
): AsyncGenerator<PackageEntry> {
  const name = storableName(item.name);
  const walk: Walk = { limits, parts: [] };
  const message = !/\.(zip|xml)$/i.test(name);
  const size = 'bytes' in item ? item.bytes.byteLength : (await stat(item.path)).size;
  if (reachesCap(size, 'messageBytes', limits)) {
    yield refused(name, { reason: 'too_large', detail: `${size} bytes, ${pastCap('messageBytes', limits)}` });
    return;
  }
  let yielded = 0;
  const walked = message
    ? walkMessage(walk, name, 'bytes' in item ? item.bytes : createReadStream(item.path), 0, null)
    : /\.zip$/i.test(name)
      ? walkZip(walk, name, 'bytes' in item ? item.bytes : { path: item.path }, 0, newBudget(limits))
      : droppedXml(name, item, limits);
  for await (const entry of walked) {
    yielded += 1;
    yield entry;
  }
  // A message that gave nothing (only a PDF, a broken MIME structure, no attachment at all) is said, never silent.
  if (message && yielded === 0)
    yield refused(name, {
      reason: 'no_fiscal_document',
      detail: storableText(
        walk.parts.length
          ? `no XML or ZIP attachment; it carries ${walk.parts.join(', ')}`
          : 'no attachment could be read from it',
      ),
    });
}

/** An `.xml` dropped in the mailbox: read, below the XML cap, when taken. */
async function* droppedXml(name: string, item: MailboxItemSource, limits: IntakeLimits): AsyncGenerator<PackageEntry> {
  const cap = xmlCap('messageBytes', limits);
  yield {
    name,
    take: async () => {
      const bytes = 'bytes' in item ? item.bytes : await readBelow(item.path, cap.bytes);
      if (bytes === null || bytes.byteLength >= cap.bytes)
        return { name, reason: 'too_large', detail: `${bytes?.byteLength ?? cap.bytes} bytes or more, ${cap.named}` };
      return classifyFile(name, bytes);
    },
  };
}

/** A file's bytes when it is smaller than `bytes`; null (having read no more than that) when it is not. */
async function readBelow(path: string, bytes: number): Promise<Uint8Array | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of createReadStream(path, { end: bytes - 1 }) as AsyncIterable<Buffer>) {
    total += chunk.byteLength;
    chunks.push(chunk);
  }
  return total >= bytes ? null : new Uint8Array(Buffer.concat(chunks, total));
}

/**
 * A file found inside a message or an archive, held in memory (below its cap): an archive or a message to open, a PDF
 * to pass over, or a candidate XML. `counted`: whether a file that is not XML is a skipped entry (archive entries) or
 * ignored (mail parts).
 */
async function* walkFile(
  walk: Walk,
  file: { name: string; bytes: Uint8Array; depth: number; counted: boolean; message: boolean },
  budget: InflateBudget | null,
): AsyncGenerator<PackageEntry> {
  const { name, bytes, depth } = file;
  const archive = !file.message && (/\.zip$/i.test(name) || looksLikeZip(bytes));
  if (archive || file.message || /\.eml$/i.test(name)) {
    if (depth + 1 > walk.limits.nestingDepth)
      yield refused(name, { reason: 'too_large', detail: `nested ${pastCap('nestingDepth', walk.limits)}` });
    else if (archive) yield* walkZip(walk, name, bytes, depth, budget ?? newBudget(walk.limits));
    else yield* walkMessage(walk, name, bytes, depth, budget);
    return;
  }
  if (/\.pdf$/i.test(name)) return;
  // Mail parts that are neither ZIP nor XML (a signature, a logo) are not the supplier's document: not counted.
  if (!file.counted && !isXmlName(name)) return;
  const sorted = classifyFile(name, bytes);
  yield { name, take: async () => sorted };
}

async function* walkMessage(
  walk: Walk,
  name: string,
  source: Uint8Array | Readable,
  depth: number,
  budget: InflateBudget | null,
): AsyncGenerator<PackageEntry> {
  let attachments;
  try {
    attachments = await mailAttachments(source, walk.limits);
  } catch (error) {
    const detail = storableText(`not a readable message: ${(error as Error).message}`);
    yield refused(name, { reason: 'unreadable', detail });
    return;
  }
  // Each attachment is let go once walked.
  for (let attachment = attachments.shift(); attachment; attachment = attachments.shift()) {
    const inner = storableName(`${name}/${attachment.name}`);
    walk.parts.push(`${attachment.name} (${attachment.contentType})`);
    if (attachment.refusal) yield refused(inner, attachment.refusal);
    else if (attachment.contentType === TNEF.type || TNEF.name.test(attachment.name))
      yield refused(inner, {
        reason: 'unreadable',
        detail:
          'an Outlook rich-text container (TNEF, winmail.dat), whose files are not read: the sender must send attachments as they are',
      });
    else if (attachment.bytes) {
      const message = attachment.contentType === 'message/rfc822';
      yield* walkFile(
        walk,
        { name: inner, bytes: attachment.bytes, depth: depth + 1, counted: false, message },
        budget,
      );
    }
  }
}

async function* walkZip(
  walk: Walk,
  name: string,
  source: ZipSource,
  depth: number,
  budget: InflateBudget,
): AsyncGenerator<PackageEntry> {
  const { limits } = walk;
  try {
    for await (const entry of zipEntries(source, limits, budget)) {
      if (entry.directory || /\.pdf$/i.test(entry.name)) continue;
      const inner = storableName(`${name}/${entry.name}`);
      if (isMacMetadata(entry.name)) yield refused(inner, { reason: 'macos_metadata' });
      else if (isXmlName(entry.name))
        yield {
          name: inner,
          take: async () => {
            const read = await entry.read(xmlCap('entryBytes', limits));
            return 'bytes' in read ? classifyFile(inner, read.bytes) : { name: inner, ...read };
          },
        };
      else yield* walkOther(walk, inner, entry, depth, budget);
    }
  } catch (error) {
    if (!(error instanceof ArchiveRefused)) throw error;
    yield refused(name, error.refusal);
  }
}

/** An archive entry not named XML: opened when it is an archive or a message, else passed over on its first bytes. */
async function* walkOther(
  walk: Walk,
  name: string,
  entry: ZipEntryHandle,
  depth: number,
  budget: InflateBudget,
): AsyncGenerator<PackageEntry> {
  if (!/\.(zip|eml)$/i.test(entry.name)) {
    const head = await firstBytes(entry);
    const skipped: Omit<SkippedEntry, 'name'> | null =
      'reason' in head
        ? head
        : looksLikeZip(head.bytes)
          ? null
          : { reason: entry.declaredSize === 0 ? 'empty' : 'not_xml' };
    if (skipped) {
      yield refused(name, skipped);
      return;
    }
  }
  const read = await entry.read();
  if ('reason' in read) yield refused(name, read);
  else yield* walkFile(walk, { name, bytes: read.bytes, depth: depth + 1, counted: true, message: false }, budget);
}

/** The first bytes an entry inflates to (one chunk), without inflating the rest. */
async function firstBytes(entry: ZipEntryHandle): Promise<{ bytes: Uint8Array } | EntryRefusal> {
  try {
    for await (const chunk of entry.stream()) if (chunk.byteLength >= 4) return { bytes: chunk };
    return { bytes: new Uint8Array() };
  } catch (error) {
    if (error instanceof EntryRefused) return error.refusal;
    throw error;
  }
}
