// The XAdES-EPES signature DIAN's policy v2 asks of every UBL document it receives, as DIAN's own files carry it:
// inclusive C14N 1.0, RSA-SHA256, three references (the document, enveloped; the KeyInfo; the SignedProperties), the
// signing certificate, the policy with its hash, the signer's role and the signing time in Bogotá. xadesjs does the
// canonicalisation, digests and signature; this module only says what to sign.
import { DOMImplementation, DOMParser, XMLSerializer } from '@xmldom/xmldom';
import * as xadesjs from 'xadesjs';
import xpath from 'xpath';
import type { SigningIdentity } from './certificate.ts';

xadesjs.Application.setEngine('NodeJS', globalThis.crypto);
xadesjs.setNodeDependencies({ DOMParser, XMLSerializer, DOMImplementation, xpath });

export const DIAN_SIGNATURE_POLICY = {
  identifier: 'https://facturaelectronica.dian.gov.co/politicadefirma/v1/politicadefirmav2.pdf',
  /** SHA-256 of the policy document, base64, as DIAN publishes it. */
  hash: 'dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=',
};
const INCLUSIVE_C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
const EXTENSIONS_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2';
const BOGOTA_OFFSET_MS = -5 * 3_600_000;

/** DER of a certificate, base64, as XML signatures carry it. */
const der = (identity: SigningIdentity) => identity.certificate.raw.toString('base64');

/**
 * Signs a UBL document in the `ext:ExtensionContent` of its second `ext:UBLExtension` (the first holds DIAN's
 * extensions). `signatureId` names the signature; the KeyInfo and the SignedProperties are named after it.
 */
export async function signUblDocument(
  xml: string,
  identity: SigningIdentity,
  options: { signatureId: string; signingTime: Date; role: 'supplier' | 'third party' },
): Promise<string> {
  const document = new DOMParser().parseFromString(xml, 'application/xml');
  const slot = document.getElementsByTagNameNS(EXTENSIONS_NS, 'ExtensionContent')[1];
  if (!slot) throw new Error('The document has no second ext:UBLExtension to hold its signature');
  // The key as WebCrypto holds it, without a round trip through its bytes (Node's type and the DOM's name one object).
  const key = identity.privateKey.toCryptoKey({ name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, false, [
    'sign',
  ]) as unknown as CryptoKey;
  const signed = new xadesjs.SignedXml();
  const id = options.signatureId;
  // Named as DIAN's files name them: the properties point at the signature, the references at the properties.
  signed.XmlSignature.Id = id;
  signed.XmlSignature.KeyInfo.Id = `${id}-keyinfo`;
  signed.Properties!.Target = `#${id}`;
  signed.Properties!.SignedProperties.Id = `${id}-signedprops`;
  signed.XmlSignature.SignedInfo.CanonicalizationMethod.Algorithm = INCLUSIVE_C14N;
  // xmldom's DOM, which xadesjs was given above, stands in for the browser's.
  await signed.Sign({ name: 'RSASSA-PKCS1-v1_5' }, key, document as unknown as Document, {
    references: [
      { id: `${id}-ref0`, uri: '', hash: 'SHA-256', transforms: ['enveloped'] },
      { uri: `#${id}-keyinfo`, hash: 'SHA-256' },
    ],
    x509: [der(identity)],
    signingCertificate: der(identity),
    // Bogotá keeps UTC−5 all year: the instant moved five hours, written as UTC time with Bogotá's offset.
    signingTime: {
      value: new Date(options.signingTime.getTime() + BOGOTA_OFFSET_MS),
      format: "UTC:yyyy-mm-dd'T'HH:MM:ss.l'-05:00'",
    },
    policy: {
      hash: 'SHA-256',
      identifier: { value: DIAN_SIGNATURE_POLICY.identifier },
      digestValue: DIAN_SIGNATURE_POLICY.hash,
    },
    signerRole: { claimed: [options.role] },
  });
  slot.appendChild(signed.GetXml() as unknown as typeof slot);
  return new XMLSerializer().serializeToString(document);
}
