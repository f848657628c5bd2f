// How the bytes of a fiscal XML file are read as text: one decision for every path (`ops documents import`, a mailbox,
// a SAT package), used both to tell an XML file from another and to parse it. A byte-order mark decides (UTF-8, UTF-16
// LE or BE); without one, UTF-16 is told by the zero byte beside its first `<`; otherwise the XML declaration's encoding
// is read, UTF-8 when it names none. Any encoding of the WHATWG Encoding standard is read as declared (ISO-8859-1 as
// windows-1252, its superset, as browsers do); another one, or UTF-16 declared in bytes that are not, refuses the file
// with the encoding named.

export type XmlEncoding =
  /** A WHATWG encoding name (`utf-8`, `utf-16le`, `windows-1252`…). */
  | { encoding: string }
  /** The encoding the declaration names, which is not read. */
  | { unsupported: string };

const DECLARED = /^(?:\xEF\xBB\xBF)?[ \t\n\r]*<\?xml[^>]*?encoding\s*=\s*["']([^"']{1,40})["']/;

/** The encoding the file's bytes are read in. */
export function xmlEncoding(bytes: Uint8Array): XmlEncoding {
  const [first, second] = [bytes[0], bytes[1]];
  if (first === 0xef && second === 0xbb && bytes[2] === 0xbf) return { encoding: 'utf-8' };
  if (first === 0xff && second === 0xfe) return { encoding: 'utf-16le' };
  if (first === 0xfe && second === 0xff) return { encoding: 'utf-16be' };
  // Without a mark: a `<` (or whitespace) with a zero byte after or before it is UTF-16.
  if (second === 0 && first !== undefined && isMarkupStart(first)) return { encoding: 'utf-16le' };
  if (first === 0 && second !== undefined && isMarkupStart(second)) return { encoding: 'utf-16be' };
  const declared = DECLARED.exec(
    Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 200)).toString('latin1'),
  )?.[1];
  if (declared === undefined) return { encoding: 'utf-8' };
  let encoding: string;
  try {
    encoding = new TextDecoder(declared.trim()).encoding;
  } catch {
    return { unsupported: declared };
  }
  // Read as ASCII, the declaration cannot be UTF-16's.
  if (encoding.startsWith('utf-16')) return { unsupported: declared };
  return { encoding };
}

const isMarkupStart = (byte: number) =>
  byte === 0x3c || byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * The file's first character past its byte-order mark and leading whitespace, read in its encoding (an encoding that
 * is not read is looked at as ASCII, so that the parser refuses it, naming it); null when there is none.
 */
export function firstCharacter(bytes: Uint8Array): string | null {
  const found = xmlEncoding(bytes);
  const decoder = new TextDecoder('encoding' in found ? found.encoding : 'windows-1252');
  const SLICE = 64 * 1024;
  for (let at = 0; at < bytes.byteLength; at += SLICE) {
    const end = Math.min(at + SLICE, bytes.byteLength);
    const text = decoder.decode(bytes.subarray(at, end), { stream: end < bytes.byteLength });
    const match = /[^ \t\n\r\uFEFF]/.exec(text);
    if (match) return match[0];
  }
  return null;
}
