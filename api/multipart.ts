import { createHash } from 'node:crypto';
import busboy from 'busboy';
import type { Context } from 'koa';
import { ApiError, UNSTORABLE_TEXT, validationError } from './errors.ts';
import { Upload } from './middleware/uploads.ts';

export interface UploadedFile {
  field: string;
  fileName: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** What a form may hold: past a limit, it is refused as a validation error. */
export interface MultipartLimits {
  maxFileBytes: number;
  maxFiles: number;
  maxFieldBytes: number;
}

/**
 * Reads a multipart/form-data body into memory within hard limits; a file over `maxFileBytes` is a validation error. A
 * body cut short (the client gone, the server's deadline passed) fails at once, and nothing of it is kept.
 */
export function readMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartBody> {
  const upload = ctx.state.upload;
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: ctx.req.headers,
        limits: {
          fileSize: limits.maxFileBytes,
          files: limits.maxFiles,
          fields: 10,
          fieldSize: limits.maxFieldBytes,
          parts: 12,
        },
      });
    } catch {
      return reject(validationError({ body: ['Malformed multipart/form-data body'] }));
    }
    const fields: Record<string, string> = {};
    const files: UploadedFile[] = [];
    let failure: ApiError | undefined;
    const capped = (error: ApiError) => {
      upload?.capped();
      failure ??= error;
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) capped(validationError({ [name]: [`Must be at most ${limits.maxFieldBytes} bytes`] }));
      if (value.includes('\u0000') || !value.isWellFormed()) failure ??= validationError({ [name]: [UNSTORABLE_TEXT] });
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      if (info.filename && (info.filename.includes('\u0000') || !info.filename.isWellFormed()))
        failure ??= validationError({ [field]: [`The file name: ${UNSTORABLE_TEXT}`] });
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () =>
        capped(
          validationError({
            [field]: [`The file must be at most ${Math.round(limits.maxFileBytes / 1024 / 1024)} MB`],
          }),
        ),
      );
      stream.on('close', () => files.push({ field, fileName: info.filename ?? '', bytes: Buffer.concat(chunks) }));
    });
    parser.on('filesLimit', () => capped(validationError({ file: [`At most ${limits.maxFiles} file`] })));
    const stopWatching =
      upload?.onCut((reason) => {
        // Left to the garbage collector with what it read: destroying it would fail its open file part.
        ctx.req.unpipe(parser);
        reject(Upload.error(reason));
      }) ?? (() => {});
    parser.on('error', () => reject(validationError({ body: ['Malformed multipart/form-data body'] })));
    parser.on('close', () => {
      stopWatching();
      if (failure) reject(failure);
      else resolve({ fields, files });
    });
    if (upload?.cut) return;
    upload?.reading();
    ctx.req.pipe(parser);
  });
}

/**
 * What a form holds, as one digest: its fields and its files, whatever boundary carried them (a client draws a new one
 * for each request, the retry of the same form included).
 */
export function formDigest(form: MultipartBody): string {
  const digest = createHash('sha256');
  const fields = Object.entries(form.fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, value] of fields) digest.update(JSON.stringify(['field', name, value]));
  for (const file of form.files) {
    const content = createHash('sha256').update(file.bytes).digest('hex');
    digest.update(JSON.stringify(['file', file.field, file.fileName, content]));
  }
  return digest.digest('hex');
}

export { sniffFileType } from '../platform/file-types.ts';
