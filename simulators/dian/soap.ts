// The SOAP side of the DIAN simulator: reads a request as DIAN's WCF service does (SOAP 1.2, WS-Addressing,
// WS-Security), and writes its answers and faults as DIAN's service writes them.
import { XMLBuilder, XMLParser } from 'fast-xml-parser';
import { isObject } from '../../platform/json.ts';

const SOAP_NS = 'http://www.w3.org/2003/05/soap-envelope';
const WCF_NS = 'http://wcf.dian.colombia';
const RESPONSE_NS = 'http://schemas.datacontract.org/2004/07/DianResponse';
const ARRAYS_NS = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
const UPLOAD_NS = 'http://schemas.datacontract.org/2004/07/UploadDocumentResponse';
export const ACTION_PREFIX = `${WCF_NS}/IWcfDianCustomerServices/`;

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  textNodeName: 'value',
  parseTagValue: false,
  parseAttributeValue: false,
  isArray: (name) => name === 'Reference' || name === 'Note',
});

/** The text of an element that may carry attributes (then its text is `value`). */
export const text = (value: unknown): string | null =>
  typeof value === 'string' ? value : isObject(value) && typeof value.value === 'string' ? value.value : null;
export const at = (value: unknown, ...path: string[]): unknown =>
  path.reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), value);

/** An XML document as the simulator reads it: namespaces dropped, attributes beside the element's `value`. */
export const parseXml = (xml: string): Record<string, unknown> => parser.parse(xml) as Record<string, unknown>;

export interface SoapRequest {
  operation: string;
  /** The operation's parameters, by name. */
  parameters: Record<string, string>;
  to: string | null;
  timestamp: { id: string | null; created: Date | null; expires: Date | null };
  toId: string | null;
  /** The certificate of the BinarySecurityToken, as PEM. */
  tokenPem: string | null;
  /** The URIs the WS-Security signature references. */
  signedReferences: string[];
}

/** A certificate's base64 as PEM: lines of 64 characters, none empty (openssl refuses a PEM with an empty line). */
const certificatePem = (base64: string) =>
  `-----BEGIN CERTIFICATE-----\n${(base64.replace(/\s/g, '').match(/.{1,64}/g) ?? []).join('\n')}\n-----END CERTIFICATE-----\n`;

/** Reads a SOAP 1.2 request; null when it is not one of DIAN's service. */
export function readRequest(xml: string): SoapRequest | null {
  let envelope: unknown;
  try {
    envelope = at(parseXml(xml), 'Envelope');
  } catch {
    return null;
  }
  const header = at(envelope, 'Header');
  const body = at(envelope, 'Body');
  if (!isObject(body)) return null;
  const action = text(at(header, 'Action')) ?? '';
  const operation = action.startsWith(ACTION_PREFIX) ? action.slice(ACTION_PREFIX.length) : null;
  if (!operation || !isObject(body[operation])) return null;
  const parameters = Object.fromEntries(
    Object.entries(body[operation]).flatMap(([name, value]) => (text(value) === null ? [] : [[name, text(value)!]])),
  );
  const security = at(header, 'Security');
  const stamp = at(security, 'Timestamp');
  const date = (value: unknown) => {
    const parsed = text(value) ? new Date(text(value)!) : null;
    return parsed && !Number.isNaN(parsed.getTime()) ? parsed : null;
  };
  const token = text(at(security, 'BinarySecurityToken'));
  const references = at(security, 'Signature', 'SignedInfo', 'Reference');
  return {
    operation,
    parameters,
    to: text(at(header, 'To')),
    toId: (at(header, 'To', 'Id') as string | undefined) ?? null,
    timestamp: {
      id: (at(stamp, 'Id') as string | undefined) ?? null,
      created: date(at(stamp, 'Created')),
      expires: date(at(stamp, 'Expires')),
    },
    tokenPem: token ? certificatePem(token) : null,
    signedReferences: Array.isArray(references)
      ? references.flatMap((reference) =>
          isObject(reference) && typeof reference.URI === 'string' ? [reference.URI] : [],
        )
      : [],
  };
}

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@_', suppressEmptyNode: true });

const envelope = (action: string, body: unknown) =>
  builder.build({
    's:Envelope': {
      '@_xmlns:s': SOAP_NS,
      '@_xmlns:a': 'http://www.w3.org/2005/08/addressing',
      's:Header': { 'a:Action': { '@_s:mustUnderstand': '1', '#text': action } },
      's:Body': body,
    },
  }) as string;

/** DIAN's answer to one document: a DianResponse. */
export interface DianResponse {
  isValid: boolean;
  statusCode: string;
  statusDescription: string;
  statusMessage: string;
  errors: string[];
  documentKey: string | null;
  fileName: string | null;
  /** DIAN's own ApplicationResponse, as XML. */
  applicationResponse: string | null;
}

const dianResponseFields = (response: DianResponse, prefix: string) => ({
  [`${prefix}:ErrorMessage`]: {
    '@_xmlns:c': ARRAYS_NS,
    'c:string': response.errors,
  },
  [`${prefix}:IsValid`]: String(response.isValid),
  [`${prefix}:StatusCode`]: response.statusCode,
  [`${prefix}:StatusDescription`]: response.statusDescription,
  [`${prefix}:StatusMessage`]: response.statusMessage,
  [`${prefix}:XmlBase64Bytes`]: response.applicationResponse
    ? Buffer.from(response.applicationResponse, 'utf8').toString('base64')
    : '',
  [`${prefix}:XmlDocumentKey`]: response.documentKey ?? '',
  [`${prefix}:XmlFileName`]: response.fileName ?? '',
});

/** The answer of an operation whose result is one DianResponse (SendEventUpdateStatus). */
export function dianResponseAnswer(operation: string, response: DianResponse): string {
  return envelope(`${ACTION_PREFIX}${operation}Response`, {
    [`${operation}Response`]: {
      '@_xmlns': WCF_NS,
      [`${operation}Result`]: { '@_xmlns:b': RESPONSE_NS, ...dianResponseFields(response, 'b') },
    },
  });
}

/** GetStatusZip's answer: the DianResponse of each document of the zip (none while it is being validated). */
export function statusZipAnswer(responses: DianResponse[]): string {
  return envelope(`${ACTION_PREFIX}GetStatusZipResponse`, {
    GetStatusZipResponse: {
      '@_xmlns': WCF_NS,
      GetStatusZipResult: {
        '@_xmlns:b': RESPONSE_NS,
        'b:DianResponse': responses.map((response) => dianResponseFields(response, 'b')),
      },
    },
  });
}

/** SendTestSetAsync's answer: the key to ask GetStatusZip with. */
export function uploadAnswer(zipKey: string): string {
  return envelope(`${ACTION_PREFIX}SendTestSetAsyncResponse`, {
    SendTestSetAsyncResponse: {
      '@_xmlns': WCF_NS,
      SendTestSetAsyncResult: {
        '@_xmlns:b': UPLOAD_NS,
        'b:ErrorMessageList': '',
        'b:ZipKey': zipKey,
      },
    },
  });
}

/** A SOAP 1.2 fault, as WCF writes one: `Sender` for a request refused (its security), `Receiver` for DIAN's failure. */
export function fault(code: 'Sender' | 'Receiver', subcode: string, reason: string): string {
  return envelope('http://www.w3.org/2005/08/addressing/soap/fault', {
    's:Fault': {
      's:Code': {
        's:Value': `s:${code}`,
        's:Subcode': {
          's:Value': {
            '@_xmlns:a': 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd',
            '#text': subcode,
          },
        },
      },
      's:Reason': { 's:Text': { '@_xml:lang': 'es-CO', '#text': reason } },
    },
  });
}
