// Takes the attachments out of an Internet message with mailparser, the message read as a stream (from its file, or
// from memory for a message found inside another). Attachments come out as streams and their decoded bytes are
// counted as they come: only what the walk may open is kept (an XML below the XML cap; a ZIP, a message or what starts
// like a ZIP below the attachment cap); PDFs, images and other parts are drained and dropped, and one past its cap is
// drained and refused. A message's kept attachments take at most its own size, which the message cap bounds (decoding
// never grows a part). Base64 parts are decoded as they stream; quoted-printable ones are decoded whole by mailparser's
// decoder (libqp) first, which the message cap bounds too. Attached messages (`message/rfc822`, a forwarded e-mail)
// come out as attachments, for the caller to open within its nesting cap. Names and types are made storable here.
import { Readable } from 'node:stream';
import { MailParser, type AttachmentStream, type MessageText } from 'mailparser';
import { storableName, storableText } from './storable-text.ts';
import { pastCap, xmlCap, type IntakeLimits, type SizeCap } from './intake-limits.ts';
import { isXmlName, type EntryRefusal } from './package-entries.ts';
import { looksLikeZip } from './zip-reader.ts';

export interface MailAttachment {
  /** The file name the sender gave (RFC 2231 and RFC 2047 decoded), or one made up from the part's position. */
  name: string;
  contentType: string;
  /** The decoded bytes; null when they were dropped (a part not to open) or refused (`refusal` says why). */
  bytes: Uint8Array | null;
  refusal: EntryRefusal | null;
}

const SLICE = 1024 * 1024;

/** The attachments of a message, in the order they appear. */
export async function mailAttachments(raw: Uint8Array | Readable, limits: IntakeLimits): Promise<MailAttachment[]> {
  const parser = new MailParser({
    ignoreEmbedded: true,
    checksumAlgo: false,
    skipHtmlToText: true,
    skipTextToHtml: true,
    skipTextLinks: true,
    skipImageLinks: true,
  });
  const attachments: Promise<MailAttachment>[] = [];
  parser.on('data', (part: AttachmentStream | MessageText) => {
    if (part.type !== 'attachment') return;
    const collected = collect(part, attachments.length + 1, limits);
    // Its failure is reported by Promise.all below, or superseded by the parser's own; never left unhandled.
    collected.catch(() => undefined);
    attachments.push(collected);
  });
  const parsed = new Promise<void>((resolve, reject) => {
    parser.once('end', resolve);
    parser.once('error', reject);
  });
  // Fed in slices, so the parser's backpressure paces the decoding of each attachment.
  const source = raw instanceof Uint8Array ? Readable.from(slices(raw)) : raw;
  source.once('error', (error) => parser.destroy(error));
  source.pipe(parser);
  await parsed;
  return Promise.all(attachments);
}

function* slices(raw: Uint8Array): Generator<Buffer> {
  for (let at = 0; at < raw.byteLength; at += SLICE)
    yield Buffer.from(raw.buffer, raw.byteOffset + at, Math.min(SLICE, raw.byteLength - at));
}

/**
 * What of a part is kept, before its first bytes are seen: none of a PDF; an XML below the XML cap; anything else
 * below the attachment cap, unless its first bytes show it is neither a ZIP nor a message (then none).
 */
function keeping(name: string, contentType: string, limits: IntakeLimits): { cap: SizeCap | null; sniff: boolean } {
  if (/\.pdf$/i.test(name) || contentType === 'application/pdf') return { cap: null, sniff: false };
  if (isXmlName(name)) return { cap: xmlCap('attachmentBytes', limits), sniff: false };
  const opened = /\.(zip|eml)$/i.test(name) || contentType === 'message/rfc822' || /zip/.test(contentType);
  return { cap: { bytes: limits.attachmentBytes, named: pastCap('attachmentBytes', limits) }, sniff: !opened };
}

async function collect(part: AttachmentStream, position: number, limits: IntakeLimits): Promise<MailAttachment> {
  const contentType = storableText(part.contentType, 200);
  const name = storableName(part.filename || `part-${position}${contentType === 'message/rfc822' ? '.eml' : ''}`);
  let { cap, sniff } = keeping(name, contentType, limits);
  let chunks: Buffer[] = [];
  let total = 0;
  try {
    // Read to the end whatever is kept: the parser goes on to the next part only once this one is consumed.
    for await (const chunk of part.content as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (cap === null) continue;
      if (sniff && chunks.length === 0 && chunk.byteLength >= 4) {
        sniff = false;
        if (!looksLikeZip(chunk)) {
          cap = null;
          continue;
        }
      }
      if (total >= cap.bytes) chunks = [];
      else chunks.push(chunk);
    }
  } finally {
    part.release?.();
  }
  if (cap !== null && total >= cap.bytes)
    return {
      name,
      contentType,
      bytes: null,
      refusal: { reason: 'too_large', detail: `decodes to ${total} bytes, ${cap.named}` },
    };
  const bytes = cap === null ? null : new Uint8Array(Buffer.concat(chunks, total));
  return { name, contentType, bytes, refusal: null };
}
