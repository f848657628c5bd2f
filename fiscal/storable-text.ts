// Text that comes from outside (a file's name in a ZIP or a message, a parser's message quoting what it read) made
// storable once, where it enters: PostgreSQL refuses U+0000 in text and jsonb, and lone surrogates in jsonb, and an
// index refuses a row past about 2.7 KB. Control characters are written as `\xNN`, so that a name still shows what it
// held; lone surrogates (what invalid UTF-8 or UTF-16 leaves) become U+FFFD; the length is capped in UTF-8 bytes.
// Idempotent: text made storable stays as it is.

/** C0 controls but tab and line feed, DEL, and the C1 controls (after lone surrogates are replaced). */
const CONTROL = /[^\t\n\u0020-\u007E\u00A0-\u{10FFFF}]/gu;
const ELLIPSIS = '…';

/** A name (a file's, a path of names) made storable: cut in the middle, so that its start and its end still show. */
export const MAX_NAME_BYTES = 1000;
/** A message or detail made storable: cut at the end. */
export const MAX_TEXT_BYTES = 4000;

const escapeControl = (character: string) => `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`;

function readable(text: string): string {
  return text.toWellFormed().replace(CONTROL, escapeControl);
}

/** A message or detail from outside, storable: controls escaped, lone surrogates replaced, at most `maxBytes`. */
export function storableText(text: string, maxBytes = MAX_TEXT_BYTES): string {
  // The cut first, by characters (at most 4 bytes each after escaping), so that a huge text costs little.
  const clean = readable(text.length > maxBytes ? text.slice(0, maxBytes + 1) : text);
  if (Buffer.byteLength(clean) <= maxBytes) return clean;
  return `${takeBytes(clean, maxBytes - Buffer.byteLength(ELLIPSIS), 'start')}${ELLIPSIS}`;
}

/** A name from outside, storable like `storableText`, cut in its middle when it is longer than `maxBytes`. */
export function storableName(name: string, maxBytes = MAX_NAME_BYTES): string {
  const clean = readable(
    name.length > 4 * maxBytes ? `${name.slice(0, 2 * maxBytes)}${name.slice(-2 * maxBytes)}` : name,
  );
  if (Buffer.byteLength(clean) <= maxBytes) return clean;
  const half = Math.floor((maxBytes - Buffer.byteLength(ELLIPSIS)) / 2);
  return `${takeBytes(clean, half, 'start')}${ELLIPSIS}${takeBytes(clean, half, 'end')}`;
}

/** The longest run of whole characters from one end of `text` that takes at most `bytes` in UTF-8. */
function takeBytes(text: string, bytes: number, from: 'start' | 'end'): string {
  const characters = Array.from(text);
  if (from === 'end') characters.reverse();
  let used = 0;
  let count = 0;
  for (const character of characters) {
    const size = Buffer.byteLength(character);
    if (used + size > bytes) break;
    used += size;
    count += 1;
  }
  const taken = characters.slice(0, count);
  return (from === 'end' ? taken.reverse() : taken).join('');
}
