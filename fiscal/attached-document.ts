// DIAN AttachedDocument: the envelope suppliers e-mail, wrapping the validated invoice or note
// (and DIAN's ApplicationResponse) as text inside cac:Attachment/cac:ExternalReference/cbc:Description.

import { normalizeCufe } from './cufe.ts';
import { isUblDocumentRoot, parseDianDocument } from './dian-ubl.ts';
import { FiscalDocumentError } from './errors.ts';
import type { FiscalParseContext, NormalizedDocument } from './normalized-document.ts';
import { child, childrenNamed, find, parseXml, textAt, textOf, type XmlElement } from './xml.ts';

export const ATTACHED_DOCUMENT_NAMESPACE = 'urn:oasis:names:specification:ubl:schema:xsd:AttachedDocument-2';

/** Reads the invoice or note inside a DIAN AttachedDocument; the envelope's facts go to `metadata.attachedDocument`. */
export function parseAttachedDocument(
  root: XmlElement,
  file: string,
  context: FiscalParseContext = {},
): NormalizedDocument {
  if (root.namespace !== ATTACHED_DOCUMENT_NAMESPACE) {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      root.path,
      `an AttachedDocument must be in the namespace ${ATTACHED_DOCUMENT_NAMESPACE}, found ${root.namespace ?? 'no namespace'}`,
    );
  }
  const attachment = child(root, 'Attachment');
  const reference = child(attachment, 'ExternalReference');
  const descriptions = childrenNamed(reference, 'Description');
  const descriptionPath = descriptions[0]?.path ?? `${root.path}/cac:Attachment/cac:ExternalReference/cbc:Description`;
  // UBL allows Description to repeat; some issuers split long content across several.
  const wrapped = descriptions
    .map((description) => description.text)
    .join('')
    .trim();
  if (wrapped === '') {
    throw new FiscalDocumentError(
      'missing_element',
      file,
      descriptionPath,
      'the AttachedDocument carries no invoice or note XML in its attachment description',
    );
  }

  const inner = parseXml(wrapped, file, descriptionPath);
  if (!isUblDocumentRoot(inner)) {
    throw new FiscalDocumentError(
      'unsupported_document',
      file,
      inner.path,
      `an AttachedDocument must wrap an Invoice, CreditNote or DebitNote, found ${inner.name}`,
    );
  }
  const document = parseDianDocument(inner, file, context);

  const parentReference = find(root, 'ParentDocumentLineReference', 'DocumentReference');
  const declaredUuid = textAt(parentReference, 'UUID');
  return {
    ...document,
    metadata: {
      ...document.metadata,
      attachedDocument: {
        id: textAt(root, 'ID'),
        profileId: textAt(root, 'ProfileID'),
        documentType: textAt(root, 'DocumentType'),
        parentDocumentId: textAt(root, 'ParentDocumentID'),
        issueDate: textAt(root, 'IssueDate'),
        sender: textAt(root, 'SenderParty', 'PartyTaxScheme', 'RegistrationName'),
        receiver: textAt(root, 'ReceiverParty', 'PartyTaxScheme', 'RegistrationName'),
        // Kept, not enforced: the envelope's own claim about which CUFE it carries.
        declaredFiscalReference: declaredUuid?.toLowerCase() ?? null,
        declaredFiscalReferenceMatches:
          declaredUuid === null ? null : normalizeCufe(declaredUuid) === document.fiscalReference,
        validation: readValidation(parentReference),
        applicationResponse: readApplicationResponse(parentReference, file),
      },
    },
  };
}

function readValidation(parentReference: XmlElement | undefined): Record<string, string | null> | null {
  const verification = child(parentReference, 'ResultOfVerification');
  if (verification === undefined) return null;
  return {
    validatorId: textAt(verification, 'ValidatorID'),
    resultCode: textAt(verification, 'ValidationResultCode'),
    date: textAt(verification, 'ValidationDate'),
    time: textAt(verification, 'ValidationTime'),
  };
}

function readApplicationResponse(
  parentReference: XmlElement | undefined,
  file: string,
): Record<string, unknown> | null {
  const descriptions = childrenNamed(find(parentReference, 'Attachment', 'ExternalReference'), 'Description');
  const text = descriptions
    .map((description) => description.text)
    .join('')
    .trim();
  const [first] = descriptions;
  if (first === undefined || text === '') return null;
  try {
    const response = parseXml(text, file, first.path);
    if (response.localName !== 'ApplicationResponse') return { readable: false };
    const answer = find(response, 'DocumentResponse', 'Response');
    return {
      readable: true,
      id: textAt(response, 'ID'),
      fiscalReference: textAt(response, 'UUID')?.toLowerCase() ?? null,
      issueDate: textAt(response, 'IssueDate'),
      responseCode: textAt(answer, 'ResponseCode'),
      description: textOf(child(answer, 'Description')),
    };
  } catch (error) {
    // DIAN's answer is informative here: an unreadable one must not hide the invoice itself.
    if (error instanceof FiscalDocumentError) return { readable: false, problem: error.code };
    throw error;
  }
}
