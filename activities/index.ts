import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import type { Orm } from '../db/orm.ts';
import { FiscalDocumentError } from '../fiscal/errors.ts';
import type { TemporalHandle } from '../worker/processes.ts';
import { ImportRejected, importFiscalDocument, type ImportFiscalDocumentInput } from './read-state/import-fiscal-document.ts';
import type { FileStorage } from './storage/file-storage.ts';

/** What activities are built from: injected, so tests and processes wire them their own way. */
export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  storage: FileStorage;
  temporal: TemporalHandle;
  /** The API's public URL, for the links stored with documents. */
  publicUrl: string;
}

/** Business rejections are final: Temporal must not retry them. */
function nonRetryable(error: unknown): never {
  if (error instanceof FiscalDocumentError) {
    throw ApplicationFailure.nonRetryable(error.message, 'InvalidFiscalDocument', { code: error.code, file: error.file, element: error.element });
  }
  if (error instanceof ImportRejected) throw ApplicationFailure.nonRetryable(error.message, 'ImportRejected', { code: error.code });
  throw error;
}

/** Every activity of the product, built over its dependencies and registered on the worker. */
export function createActivities(deps: ActivityDeps) {
  return {
    /** Imports one fiscal XML (document or Mexican payment complement) for a company; idempotent. */
    async importFiscalDocument(input: ImportFiscalDocumentInput) {
      return importFiscalDocument(deps, input).catch(nonRetryable);
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
