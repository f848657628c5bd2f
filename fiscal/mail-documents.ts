// The fiscal XML inside what a supplier e-mails: a message whose attachment is a ZIP holding the AttachedDocument XML
// and its PDF. ZIPs may be nested and may hold `.eml` messages in turn, and a message may carry the one it forwards;
// nesting is capped, like every size read on the way (`intake-limits.ts`). PDFs are the graphic representation and are
// passed over without reading; other mail parts (signatures, logos) are not looked at. A refusal skips that one file.
import { DEFAULT_INTAKE_LIMITS, pastCap, type IntakeLimits } from './intake-limits.ts';
import { mailAttachments } from './mail-reader.ts';
import { classifyFile, isXmlName, type SkippedEntry, type XmlFile } from './package-entries.ts';
import { ArchiveRefused, looksLikeZip, newBudget, zipEntries, type InflateBudget } from './zip-reader.ts';

export interface MailDocuments {
  files: XmlFile[];
  skipped: SkippedEntry[];
}

interface Walk {
  found: MailDocuments;
  limits: IntakeLimits;
  /** The parts the messages carried, as `name (type)`: what a refusal of a message without documents names. */
  parts: string[];
}

// Outlook's rich-text wrapper: the files inside are not MIME parts, and nothing here unpacks it.
const TNEF = { type: 'application/ms-tnef', name: /^winmail\.dat$/i };

/**
 * The XML files in one mailbox item: an `.eml` message, or a bare `.zip` or `.xml` dropped in the mailbox. The worker
 * passes the caps its environment sets; without them, the defaults.
 */
export async function documentsInMailboxItem(
  name: string,
  bytes: Uint8Array,
  limits: IntakeLimits = DEFAULT_INTAKE_LIMITS,
): Promise<MailDocuments> {
  const walk: Walk = { found: { files: [], skipped: [] }, limits, parts: [] };
  const message = !/\.(zip|xml)$/i.test(name);
  if (bytes.byteLength > limits.messageBytes)
    walk.found.skipped.push({
      name,
      reason: 'too_large',
      detail: `${bytes.byteLength} bytes, ${pastCap('messageBytes', limits)}`,
    });
  else await walkFile(walk, { name, bytes, depth: 0, counted: true, message }, null);
  // A message that gave nothing (only a PDF, a broken MIME structure, no attachment at all) is said, never silent.
  if (message && walk.found.files.length === 0 && walk.found.skipped.length === 0)
    walk.found.skipped.push({
      name,
      reason: 'no_fiscal_document',
      detail: walk.parts.length
        ? `no XML or ZIP attachment; it carries ${walk.parts.join(', ')}`
        : 'no attachment could be read from it',
    });
  return walk.found;
}

interface Found {
  name: string;
  bytes: Uint8Array;
  /** How many messages and archives enclose it. */
  depth: number;
  /** Whether a file that is not XML is counted as skipped (archive entries, dropped files) or ignored (mail parts). */
  counted: boolean;
  /** A message to open whatever its name (the mailbox item itself, a forwarded `message/rfc822` part). */
  message: boolean;
}

/** One file: an archive or a message to open, a PDF to pass over, or a candidate XML. */
async function walkFile(walk: Walk, file: Found, budget: InflateBudget | null): Promise<void> {
  const { name, bytes, depth } = file;
  const archive = !file.message && (/\.zip$/i.test(name) || looksLikeZip(bytes));
  if (archive || file.message || /\.eml$/i.test(name)) {
    if (depth + 1 > walk.limits.nestingDepth)
      walk.found.skipped.push({ name, reason: 'too_large', detail: `nested ${pastCap('nestingDepth', walk.limits)}` });
    else if (archive) await walkZip(walk, file, budget ?? newBudget(walk.limits));
    else await walkMessage(walk, file, budget);
    return;
  }
  if (/\.pdf$/i.test(name)) return;
  // Mail parts that are neither ZIP nor XML (a signature, a logo) are not the supplier's document: not counted.
  if (!file.counted && !isXmlName(name)) return;
  const sorted = classifyFile(name, bytes);
  if ('bytes' in sorted) walk.found.files.push(sorted);
  else walk.found.skipped.push(sorted);
}

async function walkMessage(walk: Walk, { name, bytes, depth }: Found, budget: InflateBudget | null): Promise<void> {
  let attachments;
  try {
    attachments = await mailAttachments(bytes, walk.limits);
  } catch (error) {
    walk.found.skipped.push({
      name,
      reason: 'unreadable',
      detail: `not a readable message: ${(error as Error).message}`,
    });
    return;
  }
  for (const attachment of attachments) {
    const inner = `${name}/${attachment.name}`;
    walk.parts.push(`${attachment.name} (${attachment.contentType})`);
    if (attachment.refusal) walk.found.skipped.push({ name: inner, ...attachment.refusal });
    else if (attachment.contentType === TNEF.type || TNEF.name.test(attachment.name))
      walk.found.skipped.push({
        name: inner,
        reason: 'unreadable',
        detail:
          'an Outlook rich-text container (TNEF, winmail.dat), whose files are not read: the sender must send attachments as they are',
      });
    else {
      const message = attachment.contentType === 'message/rfc822';
      await walkFile(
        walk,
        { name: inner, bytes: attachment.bytes!, depth: depth + 1, counted: false, message },
        budget,
      );
    }
  }
}

async function walkZip(walk: Walk, { name, bytes, depth }: Found, budget: InflateBudget): Promise<void> {
  try {
    for await (const entry of zipEntries(bytes, walk.limits, budget)) {
      if (entry.directory || /\.pdf$/i.test(entry.name)) continue;
      const inner = `${name}/${entry.name}`;
      const read = await entry.read();
      if ('bytes' in read)
        await walkFile(
          walk,
          { name: inner, bytes: read.bytes, depth: depth + 1, counted: true, message: false },
          budget,
        );
      else walk.found.skipped.push({ name: inner, ...read });
    }
  } catch (error) {
    if (!(error instanceof ArchiveRefused)) throw error;
    walk.found.skipped.push({ name, ...error.refusal });
  }
}
