// The attachments the product stores (notes' files, expenses' receipts): what they are, by their first bytes.

/** The largest attachment stored, in bytes. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

export type AttachmentType = 'pdf' | 'png' | 'jpeg';

/** The file-name extensions each type may carry, the first being the one it is stored under. */
export const ATTACHMENT_EXTENSIONS: Readonly<Record<AttachmentType, readonly string[]>> = {
  pdf: ['pdf'],
  png: ['png'],
  jpeg: ['jpg', 'jpeg'],
};

export const ATTACHMENT_CONTENT_TYPES: Readonly<Record<AttachmentType, string>> = {
  pdf: 'application/pdf',
  png: 'image/png',
  jpeg: 'image/jpeg',
};

const SIGNATURES: { type: AttachmentType; magic: number[] }[] = [
  { type: 'pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'jpeg', magic: [0xff, 0xd8, 0xff] },
];

/** What a file is by its first bytes, not by its name. */
export function sniffFileType(bytes: Uint8Array): AttachmentType | null {
  return SIGNATURES.find(({ magic }) => magic.every((byte, index) => bytes[index] === byte))?.type ?? null;
}

/** The longest file name kept, in characters. */
export const MAX_FILE_NAME = 255;
/** Characters as the limits count them (and as PostgreSQL does): code points, not UTF-16 units. */
const characters = (text: string) => Array.from(text);

/** The extension of `fileName` when it is not one `type` may carry; null when it fits or there is none. */
export function foreignExtension(type: AttachmentType, fileName: string): string | null {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase();
  return extension && !ATTACHMENT_EXTENSIONS[type].includes(extension) ? extension : null;
}

/** An uploaded file's name as kept: no path separators, cut to the limit; `fallback` when nothing is left. */
export const uploadedFileName = (fileName: string, fallback: string): string =>
  characters(fileName.replace(/[\\/]/g, '_')).slice(0, MAX_FILE_NAME).join('') || fallback;

/** The name a linked file goes by when none is given: its path's last segment, decoded where it can be, cut to the limit. */
export function linkedFileName(url: URL): string | null {
  const segment = url.pathname.split('/').pop() ?? '';
  let decoded = segment;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    // A malformed escape (`%ZZ`) keeps the segment as written.
  }
  // Nor can a decoded `%00` be stored.
  if (decoded.includes('\u0000')) decoded = segment;
  return characters(decoded).slice(0, MAX_FILE_NAME).join('') || null;
}
