// A minimal reader of Internet messages (RFC 5322 + MIME): headers, nested multiparts, and the leaf parts with their
// file names and decoded bytes (base64, quoted-printable, 7bit/8bit/binary). Enough to take the attachments out of an
// e-mail a supplier sent with its AttachedDocument ZIP; not a general mail library.

export interface MimePart {
  contentType: string;
  fileName: string | null;
  data: Uint8Array;
}

export interface MailMessage {
  headers: Map<string, string>;
  subject: string | null;
  from: string | null;
  /** The sender's Date header, when it parses. */
  date: Date | null;
  /** Every leaf part (body text included); attachments are the ones with a file name. */
  parts: MimePart[];
}

const MAX_DEPTH = 8;
const latin1 = new TextDecoder('latin1');

/** Parses a message from its raw bytes. */
export function parseMail(raw: Uint8Array): MailMessage {
  const { headers, body } = splitHeaders(raw);
  const parts: MimePart[] = [];
  collectParts(headers, body, parts, 0);
  const dateHeader = headers.get('date');
  const date = dateHeader ? new Date(dateHeader) : null;
  return {
    headers,
    subject: headers.has('subject') ? decodeWords(headers.get('subject')!) : null,
    from: headers.has('from') ? decodeWords(headers.get('from')!) : null,
    date: date && !Number.isNaN(date.getTime()) ? date : null,
    parts,
  };
}

/** The parts of a message that carry a file name. */
export function attachmentsOf(message: MailMessage): MimePart[] {
  return message.parts.filter((part) => part.fileName !== null);
}

function splitHeaders(raw: Uint8Array): { headers: Map<string, string>; body: Uint8Array } {
  let end = -1;
  let bodyStart = raw.byteLength;
  for (let at = 0; at < raw.byteLength; at++) {
    if (raw[at] === 0x0a && raw[at + 1] === 0x0a) {
      end = at;
      bodyStart = at + 2;
      break;
    }
    if (raw[at] === 0x0a && raw[at + 1] === 0x0d && raw[at + 2] === 0x0a) {
      end = at;
      bodyStart = at + 3;
      break;
    }
  }
  const head = latin1.decode(raw.subarray(0, end === -1 ? raw.byteLength : end));
  const headers = new Map<string, string>();
  // Folded lines continue the header before them.
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body: raw.subarray(bodyStart) };
}

/** `type/subtype; a=b; c="d"` → the type and its parameters (RFC 2231 `name*=charset''value` included). */
export function parseHeaderValue(value: string): { value: string; params: Map<string, string> } {
  const [first = '', ...rest] = splitParams(value);
  const params = new Map<string, string>();
  const continued = new Map<string, string[]>();
  for (const piece of rest) {
    const eq = piece.indexOf('=');
    if (eq <= 0) continue;
    const key = piece.slice(0, eq).trim().toLowerCase();
    let raw = piece.slice(eq + 1).trim();
    if (raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1).replace(/\\(.)/g, '$1');
    const extended = /^([^*]+)\*(\d+)?\*?$/.exec(key);
    if (extended) {
      const name = extended[1]!;
      const list = continued.get(name) ?? [];
      list[Number(extended[2] ?? 0)] = key.endsWith('*') ? decodeExtended(raw, list.length === 0) : raw;
      continued.set(name, list);
    } else params.set(key, raw);
  }
  for (const [name, pieces] of continued) params.set(name, pieces.join(''));
  return { value: first.trim().toLowerCase(), params };
}

function splitParams(value: string): string[] {
  const pieces: string[] = [];
  let current = '';
  let quoted = false;
  for (const char of value) {
    if (char === '"') quoted = !quoted;
    if (char === ';' && !quoted) {
      pieces.push(current);
      current = '';
    } else current += char;
  }
  pieces.push(current);
  return pieces;
}

function decodeExtended(raw: string, first: boolean): string {
  const match = first ? /^([^']*)'[^']*'(.*)$/.exec(raw) : null;
  const charset = match?.[1] || 'utf-8';
  const encoded = match ? match[2]! : raw;
  const bytes: number[] = [];
  for (let at = 0; at < encoded.length; at++) {
    if (encoded[at] === '%' && /^[0-9a-f]{2}$/i.test(encoded.slice(at + 1, at + 3))) {
      bytes.push(parseInt(encoded.slice(at + 1, at + 3), 16));
      at += 2;
    } else bytes.push(encoded.charCodeAt(at) & 0xff);
  }
  return decodeCharset(new Uint8Array(bytes), charset);
}

function decodeCharset(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset.toLowerCase()).decode(bytes);
  } catch {
    return new TextDecoder('utf-8').decode(bytes);
  }
}

/** RFC 2047 encoded words (`=?UTF-8?B?...?=`, `=?iso-8859-1?Q?...?=`) in a header. */
export function decodeWords(value: string): string {
  return value.replace(
    /=\?([^?]+)\?([bBqQ])\?([^?]*)\?=(\s+(?==\?))?/g,
    (_all, charset: string, encoding: string, text: string) => {
      const bytes =
        encoding.toUpperCase() === 'B'
          ? new Uint8Array(Buffer.from(text, 'base64'))
          : quotedPrintable(new TextEncoder().encode(text.replace(/_/g, ' ')));
      return decodeCharset(bytes, charset);
    },
  );
}

function collectParts(headers: Map<string, string>, body: Uint8Array, parts: MimePart[], depth: number): void {
  const type = parseHeaderValue(headers.get('content-type') ?? 'text/plain');
  const boundary = type.params.get('boundary');
  if (type.value.startsWith('multipart/') && boundary && depth < MAX_DEPTH) {
    for (const section of splitMultipart(body, boundary)) {
      const inner = splitHeaders(section);
      collectParts(inner.headers, inner.body, parts, depth + 1);
    }
    return;
  }
  const disposition = parseHeaderValue(headers.get('content-disposition') ?? '');
  const name = disposition.params.get('filename') ?? type.params.get('name') ?? null;
  parts.push({
    contentType: type.value,
    fileName: name ? decodeWords(name) : null,
    data: decodeBody(body, headers.get('content-transfer-encoding') ?? '7bit'),
  });
}

function splitMultipart(body: Uint8Array, boundary: string): Uint8Array[] {
  const text = latin1.decode(body);
  const delimiter = `--${boundary}`;
  const sections: Uint8Array[] = [];
  let at = text.indexOf(delimiter);
  while (at !== -1) {
    let start = at + delimiter.length;
    if (text.startsWith('--', start)) break;
    start = text.indexOf('\n', start);
    if (start === -1) break;
    start += 1;
    const next = text.indexOf(`\n${delimiter}`, start);
    const stop = next === -1 ? text.length : next > start && text[next - 1] === '\r' ? next - 1 : next;
    sections.push(body.subarray(start, stop));
    at = next === -1 ? -1 : next + 1;
  }
  return sections;
}

function decodeBody(body: Uint8Array, encoding: string): Uint8Array {
  switch (encoding.trim().toLowerCase()) {
    case 'base64':
      return new Uint8Array(Buffer.from(latin1.decode(body).replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'));
    case 'quoted-printable':
      return quotedPrintable(body);
    default:
      return body;
  }
}

function quotedPrintable(input: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let at = 0; at < input.byteLength; at++) {
    const byte = input[at]!;
    if (byte !== 0x3d) {
      out.push(byte);
      continue;
    }
    const hex = String.fromCharCode(input[at + 1] ?? 0, input[at + 2] ?? 0);
    if (/^[0-9A-Fa-f]{2}$/.test(hex)) {
      out.push(parseInt(hex, 16));
      at += 2;
    } else if (input[at + 1] === 0x0d && input[at + 2] === 0x0a) at += 2;
    else if (input[at + 1] === 0x0a) at += 1;
    else out.push(byte);
  }
  return new Uint8Array(out);
}
