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
