// An expense's receipt: a link people follow (judged by the outbound policy, never fetched) or a file the service
// stores (a pdf, jpg or png, checked by its content, within the attachment limit).

import {
  ATTACHMENT_CONTENT_TYPES,
  ATTACHMENT_EXTENSIONS,
  foreignExtension,
  linkedFileName,
  MAX_ATTACHMENT_BYTES,
  sniffFileType,
  uploadedFileName,
  type AttachmentType,
} from '../../platform/file-types.ts';
import { linkRefusal, type OutboundPolicy } from '../../platform/outbound-policy.ts';
import { Refusal } from '../../platform/refusal.ts';

export type ReceiptInput =
  { kind: 'link'; url: string; fileName: string | null } | { kind: 'upload'; bytes: Uint8Array; fileName: string };

/** A receipt checked and ready to keep: its link, or the bytes to store and how. */
export type CheckedReceipt =
  | { kind: 'link'; url: string; fileName: string | null }
  | { kind: 'upload'; bytes: Uint8Array; fileName: string; type: AttachmentType };

/** Why a receipt is refused: the field it came in names the part of the request at fault. */
export class ReceiptRefused extends Refusal<'receipt_not_public' | 'receipt_too_large' | 'receipt_not_supported'> {}

/** Checks a receipt before anything is written: a link must be http(s) at a public (or allowed) address. */
export async function checkReceipt(receipt: ReceiptInput, policy: OutboundPolicy): Promise<CheckedReceipt> {
  if (receipt.kind === 'link') {
    const url = URL.canParse(receipt.url) ? new URL(receipt.url) : null;
    const refusal = url ? await linkRefusal(url, policy) : 'Must be an http or https URL';
    if (refusal) throw new ReceiptRefused('receipt_not_public', `The receipt must be at a public address: ${refusal}`);
    return { kind: 'link', url: receipt.url, fileName: receipt.fileName ?? linkedFileName(url!) };
  }
  if (receipt.bytes.length > MAX_ATTACHMENT_BYTES)
    throw new ReceiptRefused(
      'receipt_too_large',
      `The receipt must be at most ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB; it has ${receipt.bytes.length} bytes`,
    );
  const type = sniffFileType(receipt.bytes);
  if (!type)
    throw new ReceiptRefused(
      'receipt_not_supported',
      'The receipt must be a pdf, jpg, jpeg or png file (checked by content)',
    );
  const extension = foreignExtension(type, receipt.fileName);
  if (extension)
    throw new ReceiptRefused(
      'receipt_not_supported',
      `The receipt's content is ${type} but its name ends in .${extension}`,
    );
  const fileName = uploadedFileName(receipt.fileName, `receipt.${ATTACHMENT_EXTENSIONS[type][0]}`);
  return { kind: 'upload', bytes: receipt.bytes, fileName, type };
}

/** Where an uploaded receipt is stored, beside its document's other files. */
export function receiptStorageKey(companyId: string, documentId: string, type: AttachmentType): string {
  return `${companyId}/documents/${documentId}/receipt.${ATTACHMENT_EXTENSIONS[type][0]}`;
}

export const receiptContentType = (type: AttachmentType) => ATTACHMENT_CONTENT_TYPES[type];
