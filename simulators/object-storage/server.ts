// An S3-compatible object store in memory, for the production-shape suite and the tests: path-style PUT and GET of
// objects, each request's SigV4 signature checked the way S3 checks it, failures answered as S3's XML errors. The
// signature is computed again with `aws4`, an implementation independent of the AWS SDK the product signs with.
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import aws4 from 'aws4';
import { guarded, listen } from '../http.ts';

export interface ObjectStorageSimulatorOptions {
  port?: number;
  host?: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  region?: string;
}

/** One request the simulator answered, for tests to inspect. */
export interface RecordedRequest {
  method: string;
  /** The path as sent, still encoded. */
  path: string;
  key: string | null;
  headers: IncomingHttpHeaders;
  status: number;
  /** The S3 error code, when it failed. */
  code: string | null;
}

export interface ObjectStorageSimulator {
  url: string;
  requests: RecordedRequest[];
  /** Every PUT of a key `refuse` names answers 403 AccessDenied, as a bucket policy would (null: none does). */
  refusePuts(refuse: ((key: string) => boolean) | null): void;
  stop: () => Promise<void>;
}

interface Reply {
  status: number;
  code?: string;
  message?: string;
  headers?: Record<string, string>;
  body?: Buffer;
}

const MAX_OBJECT_BYTES = 50 * 1024 * 1024;

const fail = (status: number, code: string, message: string): Reply => ({ status, code, message });

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

const sha256Hex = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

/** S3 refuses a request signed more than 15 minutes from its own clock. */
const MAX_SKEW_MS = 15 * 60 * 1000;

/** The parts of an `AWS4-HMAC-SHA256 Credential=…, SignedHeaders=…, Signature=…` header; null when malformed. */
function parseAuthorization(header: string) {
  const match =
    /^AWS4-HMAC-SHA256 Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      header,
    );
  if (!match) return null;
  const [, accessKeyId = '', date = '', region = '', service = '', signedHeaders = '', signature = ''] = match;
  return { accessKeyId, date, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

/** `20130524T000000Z` as an instant; NaN when it is not one. */
const amzInstant = (value: string) =>
  Date.parse(value.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, '$1-$2-$3T$4:$5:$6Z'));

/** Starts the simulator on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function startObjectStorageSimulator(
  options: ObjectStorageSimulatorOptions,
): Promise<ObjectStorageSimulator> {
  const region = options.region ?? 'us-east-1';
  const objects = new Map<string, { body: Buffer; contentType: string }>();
  const requests: RecordedRequest[] = [];
  let refused: ((key: string) => boolean) | null = null;

  const authenticate = (request: IncomingMessage, body: Buffer): Reply | null => {
    const header = request.headers.authorization;
    if (!header) return fail(403, 'AccessDenied', 'Anonymous access is not allowed');
    const auth = parseAuthorization(header);
    if (!auth || auth.service !== 's3' || auth.region !== region)
      return fail(
        400,
        'AuthorizationHeaderMalformed',
        `The authorization header is malformed; the region must be ${region} and the service s3`,
      );
    if (auth.accessKeyId !== options.accessKeyId)
      return fail(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    const amzDate = String(request.headers['x-amz-date'] ?? '');
    const payloadHash = String(request.headers['x-amz-content-sha256'] ?? '');
    if (!payloadHash)
      return fail(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
    if (
      !['host', 'x-amz-date', 'x-amz-content-sha256'].every((name) => auth.signedHeaders.includes(name)) ||
      !amzDate.startsWith(auth.date)
    ) {
      return fail(
        403,
        'AccessDenied',
        'host, x-amz-date and x-amz-content-sha256 must be signed, and x-amz-date must match the credential date',
      );
    }
    if (!(Math.abs(Date.now() - amzInstant(amzDate)) <= MAX_SKEW_MS))
      return fail(
        403,
        'RequestTimeTooSkewed',
        'The difference between the request time and the current time is too large.',
      );
    const headers: Record<string, string> = {};
    for (const name of auth.signedHeaders) {
      const value = request.headers[name];
      headers[name] = Array.isArray(value) ? value.join(',') : (value ?? '');
    }
    // aws4 decodes the path and encodes it again the S3 way: a client that encodes differently is refused.
    // The signed headers as received, x-amz-date among them: aws4 signs with that date and adds nothing.
    const recomputed = aws4.sign(
      { method: request.method, host: headers.host, path: request.url ?? '/', headers, service: 's3', region },
      { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey },
    );
    const expected = /Signature=([0-9a-f]{64})$/.exec(String(recomputed.headers?.Authorization ?? ''))?.[1] ?? '';
    if (
      expected.length !== auth.signature.length ||
      !timingSafeEqual(Buffer.from(expected), Buffer.from(auth.signature))
    )
      return fail(
        403,
        'SignatureDoesNotMatch',
        'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
      );
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256Hex(body))
      return fail(
        400,
        'XAmzContentSHA256Mismatch',
        'The provided x-amz-content-sha256 header does not match what was computed.',
      );
    return null;
  };

  const serve = (request: IncomingMessage, rawPath: string, body: Buffer): Reply & { key: string | null } => {
    let path: string;
    try {
      path = decodeURIComponent(rawPath);
    } catch {
      return { ...fail(400, 'InvalidURI', 'Could not parse the specified URI.'), key: null };
    }
    const [, bucket = '', ...rest] = path.split('/');
    const key = rest.length > 0 ? rest.join('/') : null;
    const denied = authenticate(request, body);
    if (denied) return { ...denied, key };
    if (bucket !== options.bucket) return { ...fail(404, 'NoSuchBucket', 'The specified bucket does not exist'), key };
    if (!key) return { ...fail(501, 'NotImplemented', 'Only object PUT and GET are simulated'), key };
    if (request.method === 'PUT') {
      if (refused?.(key)) return { ...fail(403, 'AccessDenied', 'Access Denied'), key };
      if (body.length > MAX_OBJECT_BYTES)
        return { ...fail(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'), key };
      objects.set(key, { body, contentType: request.headers['content-type'] ?? 'binary/octet-stream' });
      return { status: 200, headers: { etag: `"${createHash('md5').update(body).digest('hex')}"` }, key };
    }
    if (request.method === 'GET') {
      const object = objects.get(key);
      if (!object) return { ...fail(404, 'NoSuchKey', 'The specified key does not exist.'), key };
      return { status: 200, headers: { 'content-type': object.contentType }, body: object.body, key };
    }
    return { ...fail(405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.'), key };
  };

  const server = createServer(
    guarded(
      (request, received, response) => {
        const [rawPath = '/'] = (request.url ?? '/').split('?', 1);
        const reply = serve(request, rawPath, received);
        requests.push({
          method: request.method ?? '',
          path: rawPath,
          key: reply.key,
          headers: request.headers,
          status: reply.status,
          code: reply.code ?? null,
        });
        const body = reply.code
          ? Buffer.from(
              `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${reply.code}</Code><Message>${escapeXml(reply.message ?? '')}</Message><Resource>${escapeXml(rawPath)}</Resource></Error>`,
            )
          : (reply.body ?? Buffer.alloc(0));
        response.writeHead(reply.status, {
          ...(reply.code ? { 'content-type': 'application/xml' } : {}),
          ...reply.headers,
          'content-length': String(body.length),
        });
        response.end(body);
      },
      // Past the largest object, so that one too large is refused as S3 refuses it.
      { maxBodyBytes: MAX_OBJECT_BYTES + 1024 * 1024 },
    ),
  );

  const running = await listen(server, options);
  return {
    url: running.url,
    requests,
    refusePuts: (refuse) => void (refused = refuse),
    stop: running.stop,
  };
}
