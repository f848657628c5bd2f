import type { S3Client } from '@aws-sdk/client-s3';
import { readBytesUpTo } from '../outside-http.ts';
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
  /** Upper bound for one call, its retries and body included. */
  timeoutMs?: number;
}

/** A failed S3 request, with the HTTP status and the S3 error code. */
export class S3Error extends Error {
  readonly status: number;
  readonly code: string | null;
  constructor(message: string, status: number, code: string | null, cause: unknown) {
    super(message, { cause });
    this.name = 'S3Error';
    this.status = status;
    this.code = code;
  }
}

const DEFAULT_TIMEOUT_MS = 30_000;
/**
 * Above the largest file the service stores (a fiscal XML of 10 MB, an attachment of 5 MB): an object past it, in a
 * bucket others can write to, is refused rather than held in memory.
 */
export const MAX_STORED_FILE_BYTES = 16 * 1024 * 1024;
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

/**
 * The AWS SDK's S3 client for this bucket. Loaded on first use: a process that keeps files in a local directory
 * never loads the SDK.
 */
export async function s3Client(config: S3Config): Promise<S3Client> {
  const { S3Client } = await import('@aws-sdk/client-s3');
  return new S3Client({
    endpoint: config.endpoint,
    region: config.region,
    forcePathStyle: config.forcePathStyle,
    credentials: { accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey },
    // The signed x-amz-content-sha256 already lets the store refuse a body changed on the way; compatible stores
    // do not all take the newer checksum headers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

/** Files in an S3-compatible bucket, through the AWS SDK. `client` replaces the one built from `config`. */
export function s3FileStorage(config: S3Config, client?: Promise<S3Client>): FileStorage {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let connected = client;
  const call = async <T>(
    method: 'GET' | 'PUT',
    key: string,
    run: (s3: S3Client, signal: AbortSignal) => Promise<T>,
  ) => {
    assertObjectKey(key);
    connected ??= s3Client(config);
    const where = `S3 ${method} ${config.bucket}/${key}`;
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await run(await connected, signal);
    } catch (error) {
      throw failure(where, error, signal, timeoutMs);
    }
  };
  return {
    async put(key, body, contentType) {
      const { PutObjectCommand } = await import('@aws-sdk/client-s3');
      await call('PUT', key, (s3, abortSignal) =>
        s3.send(new PutObjectCommand({ Bucket: config.bucket, Key: key, Body: body, ContentType: contentType }), {
          abortSignal,
        }),
      );
    },
    async get(key) {
      const { GetObjectCommand } = await import('@aws-sdk/client-s3');
      try {
        return await call('GET', key, async (s3, abortSignal) => {
          const object = await s3.send(new GetObjectCommand({ Bucket: config.bucket, Key: key }), { abortSignal });
          const body = object.Body!.transformToWebStream();
          if ((object.ContentLength ?? 0) > MAX_STORED_FILE_BYTES) {
            await body.cancel();
            throw tooLarge();
          }
          const { bytes, complete } = await readBytesUpTo({ body }, MAX_STORED_FILE_BYTES);
          if (!complete) throw tooLarge();
          // The bytes read, as a plain Uint8Array (no copy).
          const view = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
          return { body: view, contentType: object.ContentType ?? 'application/octet-stream' };
        });
      } catch (error) {
        // Only a missing object is "not found"; a missing bucket is a misconfiguration and must be loud.
        if (error instanceof S3Error && error.status === 404 && error.code === 'NoSuchKey') return null;
        throw error;
      }
    },
  };
}

const tooLarge = () =>
  new Error(`the object is larger than any file the service stores (${MAX_STORED_FILE_BYTES} bytes)`);

/** What went wrong, named after the call: the store's HTTP status and error code, or the timeout. */
function failure(where: string, error: unknown, signal: AbortSignal, timeoutMs: number): Error {
  if (signal.aborted) return new Error(`${where} timed out after ${timeoutMs} ms`, { cause: error });
  const cause = error as Error & { $metadata?: { httpStatusCode?: number } };
  const status = cause.$metadata?.httpStatusCode ?? null;
  if (status === null) return new Error(`${where} failed: ${cause.message}`, { cause: error });
  const code = cause.name && cause.name !== 'Unknown' ? cause.name : null;
  const message =
    cause.message && cause.message !== code && cause.message !== 'UnknownError' ? ` (${cause.message})` : '';
  return new S3Error(`${where} failed: HTTP ${status}${code ? ` ${code}` : ''}${message}`, status, code, error);
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
