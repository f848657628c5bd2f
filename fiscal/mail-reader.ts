// Takes the attachments out of an Internet message with mailparser. Attachments come out as streams and their decoded
// bytes are counted as they come, so one past its cap is drained and dropped instead of held. Base64 parts are decoded
// as they stream; quoted-printable ones are decoded whole by mailparser's decoder (libqp) first, which the message cap
// bounds. Attached messages (`message/rfc822`, a forwarded e-mail) come out as attachments too, for the caller to open
// within its nesting cap.
import { Readable } from 'node:stream';
import { MailParser, type AttachmentStream, type MessageText } from 'mailparser';
import { pastCap, type IntakeLimits } from './intake-limits.ts';
import type { Refusal } from './package-entries.ts';

export interface MailAttachment {
  /** The file name the sender gave (RFC 2231 and RFC 2047 decoded), or one made up from the part's position. */
  name: string;
  contentType: string;
  /** The decoded bytes, unless `refusal` says why they were dropped. */
  bytes: Uint8Array | null;
  refusal: Refusal | null;
}

const SLICE = 1024 * 1024;

/** The attachments of a message, in the order they appear. */
export async function mailAttachments(raw: Uint8Array, limits: IntakeLimits): Promise<MailAttachment[]> {
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
  Readable.from(slices(raw)).pipe(parser);
  await parsed;
  return Promise.all(attachments);
}

function* slices(raw: Uint8Array): Generator<Buffer> {
  for (let at = 0; at < raw.byteLength; at += SLICE)
    yield Buffer.from(raw.buffer, raw.byteOffset + at, Math.min(SLICE, raw.byteLength - at));
}

async function collect(part: AttachmentStream, position: number, limits: IntakeLimits): Promise<MailAttachment> {
  const name = part.filename || `part-${position}${part.contentType === 'message/rfc822' ? '.eml' : ''}`;
  let chunks: Buffer[] = [];
  let total = 0;
  try {
    // Read to the end even past the cap: the parser goes on to the next part only once this one is consumed.
    for await (const chunk of part.content as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > limits.attachmentBytes) chunks = [];
      else chunks.push(chunk);
    }
  } finally {
    part.release?.();
  }
  if (total > limits.attachmentBytes)
    return {
      name,
      contentType: part.contentType,
      bytes: null,
      refusal: { reason: 'too_large', detail: `decodes to ${total} bytes, ${pastCap('attachmentBytes', limits)}` },
    };
  return { name, contentType: part.contentType, bytes: new Uint8Array(Buffer.concat(chunks, total)), refusal: null };
}
