// The hashes of a RADIAN event (Anexo Técnico RADIAN v1.1 §12.1.1): SHA-384 of its parts concatenated without separators.

import { createHash } from 'node:crypto';

export interface EventCudeParts {
  /** The event's own number (`cbc:ID`). */
  eventNumber: string;
  /** `cbc:IssueDate`, YYYY-MM-DD. */
  issueDate: string;
  /** `cbc:IssueTime`, HH:MM:SS-05:00. */
  issueTime: string;
  /** CompanyID of the sender (who generates the event), without check digit. */
  senderNit: string;
  /** CompanyID of the receiver. */
  receiverNit: string;
  /** The event code (030...034). */
  responseCode: string;
  /** The referenced invoice's number (prefix and number). */
  invoiceNumber: string;
  /** Referenced document type: 01 for an electronic sales invoice. */
  documentTypeCode: string;
  /** The software PIN (never in the XML). */
  softwarePin: string;
}

/** The event's CUDE: SHA-384(Num_DE + Fec_Emi + Hor_Emi + NitFE + DocAdq + ResponseCode + ID + DocumentTypeCode + Software-PIN). */
export function eventCude(parts: EventCudeParts): string {
  const text = [
    parts.eventNumber,
    parts.issueDate,
    parts.issueTime,
    parts.senderNit,
    parts.receiverNit,
    parts.responseCode,
    parts.invoiceNumber,
    parts.documentTypeCode,
    parts.softwarePin,
  ].join('');
  return createHash('sha384').update(text, 'utf8').digest('hex');
}

/** `sts:SoftwareSecurityCode` of an event: SHA-384(SoftwareID + PIN + cbc:ID), which proves the software without the PIN. */
export function softwareSecurityCode(softwareId: string, softwarePin: string, eventNumber: string): string {
  return createHash('sha384').update(`${softwareId}${softwarePin}${eventNumber}`, 'utf8').digest('hex');
}
