// DIAN's WCF service speaks SOAP 1.2 with WS-Addressing and WS-Security: the request carries the company's
// certificate as a BinarySecurityToken, a Timestamp, and a signature (exclusive C14N, RSA-SHA256) over the Timestamp
// and `wsa:To`, whose KeyInfo points at the token. xml-crypto canonicalises, digests and signs; this module lays out
// the envelope and reads DIAN's answer.
import { randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { SignedXml } from 'xml-crypto';
import type { SigningIdentity } from './certificate.ts';
import { isObject } from '../../platform/json.ts';

export const SOAP_NS = 'http://www.w3.org/2003/05/soap-envelope';
export const WCF_NS = 'http://wcf.dian.colombia';
const WSA_NS = 'http://www.w3.org/2005/08/addressing';
const WSSE_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd';
const WSU_NS = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd';
const X509_TOKEN = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3';
const BASE64_BINARY = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary';
const EXCLUSIVE_C14N = 'http://www.w3.org/2001/10/xml-exc-c14n#';

/** How long a request's Timestamp holds: DIAN refuses one that has expired. */
export const TIMESTAMP_TTL_MS = 60_000;

/** The SOAP action of an operation of DIAN's service. */
export const soapAction = (operation: string) => `${WCF_NS}/IWcfDianCustomerServices/${operation}`;

const escape = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** One operation's body: its parameters in DIAN's namespace, in order. */
export function operationBody(operation: string, parameters: [string, string][]): string {
  const fields = parameters.map(([name, value]) => `<wcf:${name}>${escape(value)}</wcf:${name}>`).join('');
  return `<wcf:${operation}>${fields}</wcf:${operation}>`;
}

/** A signed SOAP 1.2 request of `operation` to `to`, from the holder of `identity`. */
export function signedEnvelope(input: {
  operation: string;
  to: string;
  body: string;
  identity: SigningIdentity;
  now: Date;
}): string {
  const id = randomUUID();
  const [timestampId, tokenId, toId] = [`TS-${id}`, `X509-${id}`, `To-${id}`];
  const expires = new Date(input.now.getTime() + TIMESTAMP_TTL_MS);
  const token = input.identity.certificate.raw.toString('base64');
  const envelope =
    `<soap:Envelope xmlns:soap="${SOAP_NS}" xmlns:wcf="${WCF_NS}">` +
    `<soap:Header xmlns:wsa="${WSA_NS}">` +
    `<wsse:Security xmlns:wsse="${WSSE_NS}" xmlns:wsu="${WSU_NS}">` +
    `<wsu:Timestamp wsu:Id="${timestampId}"><wsu:Created>${input.now.toISOString()}</wsu:Created><wsu:Expires>${expires.toISOString()}</wsu:Expires></wsu:Timestamp>` +
    `<wsse:BinarySecurityToken EncodingType="${BASE64_BINARY}" ValueType="${X509_TOKEN}" wsu:Id="${tokenId}">${token}</wsse:BinarySecurityToken>` +
    `</wsse:Security>` +
    `<wsa:Action>${soapAction(input.operation)}</wsa:Action>` +
    `<wsa:To xmlns:wsu="${WSU_NS}" wsu:Id="${toId}">${escape(input.to)}</wsa:To>` +
    `</soap:Header>` +
    `<soap:Body>${input.body}</soap:Body>` +
    `</soap:Envelope>`;
  const signature = new SignedXml({
    idMode: 'wssecurity',
    privateKey: input.identity.privateKey,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: EXCLUSIVE_C14N,
    getKeyInfoContent: () =>
      `<wsse:SecurityTokenReference><wsse:Reference URI="#${tokenId}" ValueType="${X509_TOKEN}"/></wsse:SecurityTokenReference>`,
  });
  for (const signed of [timestampId, toId])
    signature.addReference({
      xpath: `//*[@*[local-name()='Id']='${signed}']`,
      transforms: [EXCLUSIVE_C14N],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
  signature.computeSignature(envelope, {
    prefix: 'ds',
    location: { reference: `//*[local-name()='Security']`, action: 'append' },
    existingPrefixes: { wsse: WSSE_NS },
  });
  return signature.getSignedXml();
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  parseTagValue: false,
  isArray: (name) => name === 'string',
});

export interface SoapAnswer {
  /** The operation's `<…Result>`, namespaces dropped; null for a fault. */
  result: Record<string, unknown> | null;
  /** A SOAP Fault: `Sender` when DIAN refused the request itself (its security, its form), `Receiver` when it failed. */
  fault: { code: string; subcode: string; reason: string } | null;
}

const textOf = (value: unknown): string =>
  typeof value === 'string' ? value : isObject(value) && typeof value['#text'] === 'string' ? value['#text'] : '';

/** Reads a SOAP 1.2 answer of `operation`; throws when it is neither its result nor a fault. */
export function readAnswer(xml: string, operation: string): SoapAnswer {
  const body = (parser.parse(xml) as { Envelope?: { Body?: Record<string, unknown> } }).Envelope?.Body;
  if (!isObject(body)) throw new Error('DIAN answered something that is not a SOAP envelope');
  const fault = body.Fault;
  if (isObject(fault)) {
    const code = (fault.Code as Record<string, unknown> | undefined) ?? {};
    const subcode = isObject(code.Subcode) ? textOf(code.Subcode.Value) : '';
    const reason = isObject(fault.Reason) ? textOf(fault.Reason.Text) : '';
    return { result: null, fault: { code: textOf(code.Value), subcode, reason: reason || 'SOAP fault' } };
  }
  const response = body[`${operation}Response`];
  const result = isObject(response) ? response[`${operation}Result`] : undefined;
  if (!isObject(result)) throw new Error(`DIAN's answer has no ${operation}Result`);
  return { result, fault: null };
}
