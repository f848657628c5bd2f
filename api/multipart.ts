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

const SIGNATURES: { type: 'pdf' | 'png' | 'jpeg'; magic: number[] }[] = [
  { type: 'pdf', magic: [0x25, 0x50, 0x44, 0x46, 0x2d] },
  { type: 'png', magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] },
  { type: 'jpeg', magic: [0xff, 0xd8, 0xff] },
];

/** What a file is by its first bytes, not by its name. */
export function sniffFileType(bytes: Uint8Array): 'pdf' | 'png' | 'jpeg' | null {
  return SIGNATURES.find(({ magic }) => magic.every((byte, index) => bytes[index] === byte))?.type ?? null;
}
