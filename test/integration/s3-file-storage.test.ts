import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import aws4 from 'aws4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uuidv7 } from '../../db/ids.ts';
import { fileStorageFromEnv } from '../../platform/storage/file-storage.ts';
import {
  MAX_STORED_FILE_BYTES,
  s3Client,
  s3FileStorage,
  type S3Config,
} from '../../platform/storage/s3-file-storage.ts';
import { startObjectStorageSimulator, type ObjectStorageSimulator } from '../../simulators/object-storage/server.ts';

const bucket = 'ap-files';
const accessKeyId = 'simulator-access-key';
const secretAccessKey = 'simulator-secret-key';
const company = uuidv7();

let simulator: ObjectStorageSimulator;
let config: S3Config;

beforeAll(async () => {
  simulator = await startObjectStorageSimulator({ bucket, accessKeyId, secretAccessKey });
  config = {
    endpoint: simulator.url,
    region: 'us-east-1',
    bucket,
    accessKeyId,
    secretAccessKey,
    forcePathStyle: true,
    timeoutMs: 5_000,
  };
});

afterAll(async () => {
  await simulator?.stop();
});

const lastRequest = () => simulator.requests.at(-1);

describe('S3 file storage', () => {
  it('stores a file and gives back the same bytes and content type, path-style and signed', async () => {
    const storage = s3FileStorage(config);
    const key = `${company}/documents/${uuidv7()}/invoice.xml`;
    const body = new TextEncoder().encode('<Invoice>ñ</Invoice>');
    await storage.put(key, body, 'application/xml');
    expect(lastRequest()).toMatchObject({ method: 'PUT', path: `/${bucket}/${key}`, status: 200 });
    expect(lastRequest()?.headers['content-type']).toBe('application/xml');
    const authorization = lastRequest()?.headers.authorization ?? '';
    expect(authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=simulator-access-key\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    // The body's hash is signed, so the store refuses a body changed on the way.
    expect(/SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';')).toEqual(
      expect.arrayContaining(['content-type', 'host', 'x-amz-content-sha256', 'x-amz-date']),
    );
    expect(lastRequest()?.headers['x-amz-content-sha256']).toBe(createHash('sha256').update(body).digest('hex'));

    const file = await storage.get(key);
    expect(file?.contentType).toBe('application/xml');
    expect(Buffer.from(file?.body ?? []).toString()).toBe('<Invoice>ñ</Invoice>');
  });

  it('gives null for a missing key, and an error for a missing bucket', async () => {
    expect(await s3FileStorage(config).get(`${company}/documents/missing.xml`)).toBeNull();
    expect(lastRequest()).toMatchObject({ status: 404, code: 'NoSuchKey' });
    await expect(
      s3FileStorage({ ...config, bucket: 'other-bucket' }).get(`${company}/documents/missing.xml`),
    ).rejects.toThrow(/HTTP 404 NoSuchBucket/);
  });

  it('fails clearly when the secret is wrong', async () => {
    const storage = s3FileStorage({ ...config, secretAccessKey: 'not-the-secret' });
    await expect(storage.put(`${company}/documents/a.xml`, new Uint8Array([1]), 'application/xml')).rejects.toThrow(
      /S3 PUT ap-files\/.+\/documents\/a\.xml failed: HTTP 403 SignatureDoesNotMatch/,
    );
    await expect(storage.get(`${company}/documents/a.xml`)).rejects.toMatchObject({
      status: 403,
      code: 'SignatureDoesNotMatch',
    });
  });

  it('encodes keys with spaces, accents and reserved characters the S3 way', async () => {
    const storage = s3FileStorage(config);
    const key = `${company}/notes/Factura de marzo – Señal (1)+IVA.pdf`;
    const body = new Uint8Array([0x25, 0x50, 0x44, 0x46]);
    await storage.put(key, body, 'application/pdf');
    // The simulator re-encodes the decoded path itself: a signature over any other encoding would be refused.
    expect(lastRequest()).toMatchObject({
      status: 200,
      key,
      path: `/${bucket}/${company}/notes/Factura%20de%20marzo%20%E2%80%93%20Se%C3%B1al%20%281%29%2BIVA.pdf`,
    });
    expect(await storage.get(key)).toEqual({ body, contentType: 'application/pdf' });
  });

  it('is refused, as S3 refuses it, when the body is not the signed one or the clock is off by over 15 minutes', async () => {
    const key = `${company}/documents/tampered.xml`;
    const url = new URL(`${simulator.url}/${bucket}/${key}`);
    const signedPut = (body: string, date?: Date) =>
      aws4.sign(
        {
          method: 'PUT',
          host: url.host,
          path: url.pathname,
          service: 's3',
          region: 'us-east-1',
          body,
          headers: date ? { 'X-Amz-Date': date.toISOString().replace(/[-:]|\.\d{3}/g, '') } : {},
        },
        { accessKeyId, secretAccessKey },
      ).headers as Record<string, string>;
    const put = (headers: Record<string, string>, body: string) => fetch(url, { method: 'PUT', headers, body });

    expect((await put(signedPut('<a/>'), '<a/>')).status).toBe(200);
    // Signed a while ago, within S3's 15 minutes: the signature is checked with the date it was signed with.
    expect((await put(signedPut('<a/>', new Date(Date.now() - 5 * 60_000)), '<a/>')).status).toBe(200);
    const changed = await put(signedPut('<a/>'), '<b/>');
    expect(changed.status).toBe(400);
    expect(await changed.text()).toContain('<Code>XAmzContentSHA256Mismatch</Code>');
    const late = await put(signedPut('<a/>', new Date(Date.now() - 20 * 60_000)), '<a/>');
    expect(late.status).toBe(403);
    expect(await late.text()).toContain('<Code>RequestTimeTooSkewed</Code>');
  });

  it('refuses to download an object larger than any file the service stores', async () => {
    const storage = s3FileStorage(config);
    const key = `${company}/documents/oversized.xml`;
    await storage.put(key, new Uint8Array(MAX_STORED_FILE_BYTES + 1), 'application/xml');
    await expect(storage.get(key)).rejects.toThrow(
      `S3 GET ap-files/${key} failed: the object is larger than any file the service stores (${MAX_STORED_FILE_BYTES} bytes)`,
    );
  });

  it('refuses keys outside a company or with dot segments', async () => {
    const storage = s3FileStorage(config);
    await expect(storage.get('documents/a.xml')).rejects.toThrow(/Invalid storage key/);
    await expect(storage.get(`${company}/../other/a.xml`)).rejects.toThrow(/Invalid storage key/);
  });

  it('puts the bucket in the host name when not path-style', async () => {
    const aws = {
      ...config,
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      forcePathStyle: false,
    };
    const client = await s3Client(aws);
    let sent: { hostname: string; path: string; headers: Record<string, string> } | undefined;
    // The request as it would leave, signed, kept instead of sent.
    client.middlewareStack.add(
      (_next) => async (args) => {
        sent = args.request as typeof sent;
        throw new Error('not sent');
      },
      { step: 'deserialize' },
    );
    await expect(
      s3FileStorage(aws, Promise.resolve(client)).put(`${company}/a b.xml`, new Uint8Array([1]), 'application/xml'),
    ).rejects.toThrow(/not sent/);
    expect(sent).toMatchObject({ hostname: `${bucket}.s3.eu-west-1.amazonaws.com`, path: `/${company}/a%20b.xml` });
    expect(sent?.headers.authorization).toContain('/eu-west-1/s3/aws4_request, SignedHeaders=');
  });

  it('gives up after its timeout', async () => {
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const storage = s3FileStorage({
        ...config,
        endpoint: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        timeoutMs: 200,
      });
      await expect(storage.get(`${company}/a.xml`)).rejects.toThrow(/timed out after 200 ms/);
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe('fileStorageFromEnv', () => {
  const s3Env = () => ({
    STORAGE_S3_BUCKET: bucket,
    STORAGE_S3_ENDPOINT: simulator.url,
    STORAGE_S3_ACCESS_KEY_ID: accessKeyId,
    STORAGE_S3_SECRET_ACCESS_KEY: secretAccessKey,
  });

  it('uses S3, path-style for a custom endpoint, when STORAGE_S3_BUCKET is set', async () => {
    const key = `${company}/documents/from-env.xml`;
    await fileStorageFromEnv(s3Env()).put(key, new Uint8Array([60]), 'application/xml');
    expect(lastRequest()).toMatchObject({ method: 'PUT', path: `/${bucket}/${key}`, status: 200 });
  });

  it('uses the local directory otherwise', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ap-storage-'));
    try {
      const before = simulator.requests.length;
      await fileStorageFromEnv({ STORAGE_DIR: dir }).put(
        `${company}/documents/local.xml`,
        new Uint8Array([60]),
        'application/xml',
      );
      expect(existsSync(join(dir, company, 'documents', 'local.xml'))).toBe(true);
      expect(simulator.requests.length).toBe(before);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to boot when the bucket is set without credentials', () => {
    expect(() => fileStorageFromEnv({ STORAGE_S3_BUCKET: bucket })).toThrow(
      'STORAGE_S3_BUCKET is set, so files go to S3, but STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY are not set',
    );
    expect(() => fileStorageFromEnv({ ...s3Env(), STORAGE_S3_SECRET_ACCESS_KEY: '' })).toThrow(
      /STORAGE_S3_SECRET_ACCESS_KEY is not set/,
    );
    expect(() => fileStorageFromEnv({ ...s3Env(), STORAGE_S3_FORCE_PATH_STYLE: 'yes' })).toThrow(
      /STORAGE_S3_FORCE_PATH_STYLE must be true or false/,
    );
  });
});
