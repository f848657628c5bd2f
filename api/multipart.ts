import busboy from 'busboy';
import type { Context } from 'koa';
import { ApiError, UNSTORABLE_TEXT, validationError } from './errors.ts';

export interface UploadedFile {
  field: string;
  fileName: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Record<string, string>;
  files: UploadedFile[];
}

/** Reads a multipart/form-data body into memory within hard limits; a file over `maxFileBytes` is a validation error. */
export function readMultipart(
  ctx: Context,
  limits: { maxFileBytes: number; maxFiles: number; maxFieldBytes: number },
): Promise<MultipartBody> {
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
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated)
        failure ??= validationError({ [name]: [`Must be at most ${limits.maxFieldBytes} bytes`] });
      if (value.includes('\u0000') || !value.isWellFormed()) failure ??= validationError({ [name]: [UNSTORABLE_TEXT] });
      fields[name] = value;
    });
    parser.on('file', (field, stream, info) => {
      if (info.filename && (info.filename.includes('\u0000') || !info.filename.isWellFormed()))
        failure ??= validationError({ [field]: [`The file name: ${UNSTORABLE_TEXT}`] });
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on(
        'limit',
        () =>
          (failure ??= validationError({
            [field]: [`The file must be at most ${Math.round(limits.maxFileBytes / 1024 / 1024)} MB`],
          })),
      );
      stream.on('close', () => files.push({ field, fileName: info.filename ?? '', bytes: Buffer.concat(chunks) }));
    });
    parser.on('filesLimit', () => (failure ??= validationError({ file: [`At most ${limits.maxFiles} file`] })));
    parser.on('error', () => reject(validationError({ body: ['Malformed multipart/form-data body'] })));
    parser.on('close', () => (failure ? reject(failure) : resolve({ fields, files })));
    ctx.req.pipe(parser);
  });
}

export { sniffFileType } from '../platform/file-types.ts';
