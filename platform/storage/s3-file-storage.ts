import { authorizationHeader, EMPTY_PAYLOAD_HASH, encodeKeyPath, sha256Hex, toAmzDate } from './aws-signature-v4.ts';
import type { FileStorage } from './file-storage.ts';

/** Where and how to reach an S3-compatible bucket. */
export interface S3Config {
  /** `https://s3.<region>.amazonaws.com`, or a compatible store's URL (`http://127.0.0.1:9000` for MinIO). */
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint host>/<key>`: what most compatible stores expect. */
  forcePathStyle: boolean;
  /** Upper bound for one request, body included. */
  timeoutMs?: number;
}

/** A failed S3 request, with the HTTP status and the S3 error code from the XML body. */
export class S3Error extends Error {
  readonly status: number;
  readonly code: string | null;
  constructor(message: string, status: number, code: string | null) {
    super(message);
    this.name = 'S3Error';
    this.status = status;
    this.code = code;
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
const OWNER_PREFIX = /^[0-9a-f-]{36}\//;

// Looser than the local store's rule (S3 keys may hold spaces and accents), but the owner prefix and the absence
// of dot segments are kept: the API serves a file only to the company its key starts with.
function assertObjectKey(key: string): void {
  const segments = key.split('/');
  const valid =
    OWNER_PREFIX.test(key) &&
    Buffer.byteLength(key) <= 1024 &&
    !/[\p{Cc}]/u.test(key) &&
    segments.every((segment) => segment !== '' && segment !== '.' && segment !== '..');
  if (!valid) throw new Error(`Invalid storage key: ${key}`);
}

/** Files in an S3-compatible bucket, signed with AWS Signature Version 4 over plain fetch. */
export function s3FileStorage(config: S3Config): FileStorage {
  const endpoint = new URL(config.endpoint);
  const basePath = endpoint.pathname.replace(/\/+$/, '');
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;

  const urlOf = (key: string): URL => {
    assertObjectKey(key);
    const url = new URL(endpoint.origin);
    if (config.forcePathStyle) url.pathname = `${basePath}/${encodeKeyPath(config.bucket)}/${encodeKeyPath(key)}`;
    else {
      url.hostname = `${config.bucket}.${endpoint.hostname}`;
      url.pathname = `${basePath}/${encodeKeyPath(key)}`;
    }
    return url;
  };

  const send = async (method: 'GET' | 'PUT', key: string, body?: Uint8Array, contentType?: string) => {
    const url = urlOf(key);
    const payloadHash = body ? sha256Hex(body) : EMPTY_PAYLOAD_HASH;
    const amzDate = toAmzDate(new Date());
    const headers: Record<string, string> = { 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
    if (contentType) headers['content-type'] = contentType;
    // fetch sets Host itself, from the URL: sign the same value.
    const authorization = authorizationHeader(
      { method, canonicalUri: url.pathname, headers: { ...headers, host: url.host }, payloadHash },
      {
        accessKeyId: config.accessKeyId,
        secretAccessKey: config.secretAccessKey,
        region: config.region,
        service: 's3',
        amzDate,
      },
    );
    const where = `S3 ${method} ${config.bucket}/${key}`;
    try {
      const response = await fetch(url, {
        method,
        headers: { ...headers, authorization },
        ...(body ? { body: Buffer.from(body) } : {}),
        signal: AbortSignal.timeout(timeoutMs),
      });
      return {
        where,
        status: response.status,
        headers: response.headers,
        body: new Uint8Array(await response.arrayBuffer()),
      };
    } catch (error) {
      if ((error as Error).name === 'TimeoutError')
        throw new Error(`${where} timed out after ${timeoutMs} ms`, { cause: error });
      throw new Error(`${where} failed: ${(error as Error).message}`, { cause: error });
    }
  };

  return {
    async put(key, body, contentType) {
      const response = await send('PUT', key, body, contentType);
      if (response.status !== 200) throw s3Error(response);
    },
    async get(key) {
      const response = await send('GET', key);
      if (response.status === 200) {
        return { body: response.body, contentType: response.headers.get('content-type') ?? 'application/octet-stream' };
      }
      const error = s3Error(response);
      // Only a missing object is "not found"; a missing bucket is a misconfiguration and must be loud.
      if (response.status === 404 && (error.code === 'NoSuchKey' || error.code === null)) return null;
      throw error;
    },
  };
}

function s3Error(response: { where: string; status: number; body: Uint8Array }): S3Error {
  const xml = new TextDecoder().decode(response.body);
  const code = /<Code>([^<]+)<\/Code>/.exec(xml)?.[1] ?? null;
  const message = /<Message>([^<]+)<\/Message>/.exec(xml)?.[1];
  return new S3Error(
    `${response.where} failed: HTTP ${response.status}${code ? ` ${code}` : ''}${message ? ` (${message})` : ''}`,
    response.status,
    code,
  );
}

/** The S3 settings from the STORAGE_S3_* variables, checked at boot. */
export function s3ConfigFromEnv(env: NodeJS.ProcessEnv = process.env): S3Config {
  const bucket = env.STORAGE_S3_BUCKET?.trim() ?? '';
  const region = env.STORAGE_S3_REGION?.trim() || 'us-east-1';
  const accessKeyId = env.STORAGE_S3_ACCESS_KEY_ID?.trim() ?? '';
  const secretAccessKey = env.STORAGE_S3_SECRET_ACCESS_KEY?.trim() ?? '';
  if (!bucket) throw new Error('STORAGE_S3_BUCKET is not set');
  const missing = [
    !accessKeyId && 'STORAGE_S3_ACCESS_KEY_ID',
    !secretAccessKey && 'STORAGE_S3_SECRET_ACCESS_KEY',
  ].filter(Boolean);
  if (missing.length > 0)
    throw new Error(
      `STORAGE_S3_BUCKET is set, so files go to S3, but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not set`,
    );
  const customEndpoint = env.STORAGE_S3_ENDPOINT?.trim();
  const endpoint = customEndpoint || `https://s3.${region}.amazonaws.com`;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol))
    throw new Error(`STORAGE_S3_ENDPOINT must be an http(s) URL, got ${endpoint}`);
  const pathStyle = env.STORAGE_S3_FORCE_PATH_STYLE?.trim();
  if (pathStyle && pathStyle !== 'true' && pathStyle !== 'false')
    throw new Error(`STORAGE_S3_FORCE_PATH_STYLE must be true or false, got ${pathStyle}`);
  return {
    endpoint,
    region,
    bucket,
    accessKeyId,
    secretAccessKey,
    // A custom endpoint is nearly always MinIO or another compatible store, which expects path-style by default.
    forcePathStyle: pathStyle ? pathStyle === 'true' : Boolean(customEndpoint),
  };
}
