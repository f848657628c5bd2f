import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { s3ConfigFromEnv, s3FileStorage } from './s3-file-storage.ts';

/** Where documents' XML and notes' attachments are kept. Keys start with the owning company's reference. */
export interface FileStorage {
  put(key: string, body: Uint8Array, contentType: string): Promise<void>;
  get(key: string): Promise<{ body: Uint8Array; contentType: string } | null>;
}

const KEY = /^[0-9a-f-]{36}(\/[A-Za-z0-9][A-Za-z0-9._-]{0,200}){1,6}$/;

export function assertStorageKey(key: string): void {
  if (!KEY.test(key) || key.includes('..')) throw new Error(`Invalid storage key: ${key}`);
}

export const CONTENT_TYPES: Record<string, string> = {
  xml: 'application/xml',
  pdf: 'application/pdf',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  zip: 'application/zip',
};

export function contentTypeOf(key: string): string {
  return CONTENT_TYPES[key.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

/** Files in a local directory: the default, and what the embedded product and the tests use. */
export function localFileStorage(root: string): FileStorage {
  const base = resolve(root);
  const pathOf = (key: string) => {
    assertStorageKey(key);
    const path = resolve(base, key);
    if (!path.startsWith(base + sep)) throw new Error(`Invalid storage key: ${key}`);
    return path;
  };
  return {
    async put(key, body) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // Write then rename, so that a reader never sees half a file.
      const staging = `${path}.${process.pid}.partial`;
      await writeFile(staging, body);
      await rename(staging, path);
    },
    async get(key) {
      try {
        return { body: await readFile(pathOf(key)), contentType: contentTypeOf(key) };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
  };
}

/** The configured file storage: an S3-compatible bucket when STORAGE_S3_BUCKET is set, else a local directory. */
export function fileStorageFromEnv(env: NodeJS.ProcessEnv = process.env): FileStorage {
  if (env.STORAGE_S3_BUCKET?.trim()) return s3FileStorage(s3ConfigFromEnv(env));
  return localFileStorage(env.STORAGE_DIR ?? join(env.AP_DATA_DIR ?? join(process.cwd(), '.data'), 'files'));
}
