// AWS Signature Version 4 (header-based), pure: no clock, no I/O. Used by the S3 adapter to sign and by the
// object-storage simulator to verify. https://docs.aws.amazon.com/AmazonS3/latest/API/sig-v4-header-based-auth.html
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export const ALGORITHM = 'AWS4-HMAC-SHA256';
export const EMPTY_PAYLOAD_HASH = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The parts of an HTTP request that the signature covers. */
export interface SignableRequest {
  method: string;
  /** The path exactly as sent, already URI-encoded (`/bucket/my%20file.xml`). */
  canonicalUri: string;
  /** Query parameters, not encoded. */
  query?: ReadonlyArray<readonly [string, string]>;
  /** The headers to sign, names in any case; they must include host, x-amz-date and x-amz-content-sha256. */
  headers: Readonly<Record<string, string>>;
  /** Hex SHA-256 of the payload: the value of x-amz-content-sha256. */
  payloadHash: string;
}

export interface SigningParams {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  service: string;
  /** `YYYYMMDD'T'HHMMSS'Z'`, the value of x-amz-date. */
  amzDate: string;
}

/** Hex SHA-256 of a payload. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The x-amz-date form of an instant: `20130524T000000Z`. */
export function toAmzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

/** URI-encodes per S3 rules: every byte but A-Z a-z 0-9 - . _ ~ becomes %XX (uppercase); `/` is kept when asked. */
export function uriEncode(value: string, keepSlash = false): string {
  // encodeURIComponent leaves ! ' ( ) * alone, which SigV4 requires encoded.
  const encoded = encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return keepSlash ? encoded.replace(/%2F/g, '/') : encoded;
}

/** An object key as a URL path: each segment encoded, `/` kept. */
export function encodeKeyPath(key: string): string {
  return uriEncode(key, true);
}

// By code unit, as AWS sorts; localeCompare would not.
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function canonicalHeaders(headers: Readonly<Record<string, string>>): Array<[string, string]> {
  return Object.entries(headers)
    .map(([name, value]): [string, string] => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')])
    .sort(([a], [b]) => compare(a, b));
}

/** The names of the signed headers, lowercase, sorted, joined by `;`. */
export function signedHeaderNames(headers: Readonly<Record<string, string>>): string {
  return canonicalHeaders(headers)
    .map(([name]) => name)
    .join(';');
}

/** The canonical request: method, URI, query, headers, signed header names and payload hash, one per line. */
export function canonicalRequest(request: SignableRequest): string {
  const query = (request.query ?? [])
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([a, x], [b, y]) => compare(a, b) || compare(x, y))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  const headers = canonicalHeaders(request.headers)
    .map(([name, value]) => `${name}:${value}\n`)
    .join('');
  return [
    request.method.toUpperCase(),
    request.canonicalUri,
    query,
    headers,
    signedHeaderNames(request.headers),
    request.payloadHash,
  ].join('\n');
}

/** `<date>/<region>/<service>/aws4_request`. */
export function credentialScope(amzDate: string, region: string, service: string): string {
  return `${amzDate.slice(0, 8)}/${region}/${service}/aws4_request`;
}

/** The string to sign: algorithm, date, credential scope and the hash of the canonical request. */
export function stringToSign(
  canonical: string,
  params: Omit<SigningParams, 'accessKeyId' | 'secretAccessKey'>,
): string {
  return [
    ALGORITHM,
    params.amzDate,
    credentialScope(params.amzDate, params.region, params.service),
    sha256Hex(canonical),
  ].join('\n');
}

const hmac = (key: Uint8Array | string, data: string) => createHmac('sha256', key).update(data).digest();

/** The signing key: HMAC-SHA256 chained over date, region, service and `aws4_request`, from `AWS4<secret>`. */
export function signingKey(secretAccessKey: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, date), region), service), 'aws4_request');
}

/** The hex signature of a request. */
export function signature(request: SignableRequest, params: SigningParams): string {
  const key = signingKey(params.secretAccessKey, params.amzDate.slice(0, 8), params.region, params.service);
  return createHmac('sha256', key)
    .update(stringToSign(canonicalRequest(request), params))
    .digest('hex');
}

/** The Authorization header value for a request. */
export function authorizationHeader(request: SignableRequest, params: SigningParams): string {
  const scope = credentialScope(params.amzDate, params.region, params.service);
  return `${ALGORITHM} Credential=${params.accessKeyId}/${scope}, SignedHeaders=${signedHeaderNames(request.headers)}, Signature=${signature(request, params)}`;
}

export interface ParsedAuthorization {
  accessKeyId: string;
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
}

/** Reads an Authorization header back into its parts; null when it is not a well-formed SigV4 header. */
export function parseAuthorization(header: string): ParsedAuthorization | null {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header.trim(),
    );
  if (!match) return null;
  const [, accessKeyId = '', date = '', region = '', service = '', signedHeaders = '', hex = ''] = match;
  return { accessKeyId, date, region, service, signedHeaders: signedHeaders.split(';'), signature: hex };
}

/** Compares two hex signatures in constant time. */
export function sameSignature(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
