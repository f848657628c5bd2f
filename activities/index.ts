import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from 'pino';
import type { Orm } from '../db/orm.ts';
import type { OutsideSystems } from './outside-systems.ts';
import { FiscalDocumentError } from '../fiscal/errors.ts';
import type { TemporalHandle } from '../worker/processes.ts';
import { ImportRejected, importFiscalDocument, type ImportFiscalDocumentInput } from './read-state/import-fiscal-document.ts';
import * as lifecycle from './read-state/lifecycle.ts';
import type { FileStorage } from './storage/file-storage.ts';
import { attemptDelivery, giveUpDelivery } from './webhooks/deliver.ts';
import type { RetrySchedule } from './webhooks/events.ts';
import type { SecretBox } from './webhooks/secret-box.ts';

/** What activities are built from: injected, so tests and processes wire them their own way. */
export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  storage: FileStorage;
  temporal: TemporalHandle;
  /** The API's public URL, for the links in webhook payloads. */
  publicUrl: string;
  /** Opens the sealed webhook secrets. */
  secrets: SecretBox;
  webhookRetry: RetrySchedule;
  /** Outside production, webhooks may go to http receivers on loopback. */
  environment: 'development' | 'production';
  outside: OutsideSystems;
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
    /** Where a document's flow stands (read state is the source of truth for completed steps). */
    loadLifecycle: (input: Parameters<typeof lifecycle.loadLifecycle>[1]) => lifecycle.loadLifecycle(deps.orm, input),
    /** Writes a flow step as it opens. */
    openStep: (input: Parameters<typeof lifecycle.openStep>[1]) => lifecycle.openStep(deps.orm, input),
    /** Records a decision on a step, and its outcome when it closes the step. */
    completeStep: (input: Parameters<typeof lifecycle.completeStep>[1]) => lifecycle.completeStep(deps.orm, input),
    /** Approves a document (with its ERP reference) and generates its payables. */
    approveDocument: (input: Parameters<typeof lifecycle.approveDocument>[1]) => lifecycle.approveDocument(deps.orm, input),
    /** Sends one signed attempt of a webhook delivery and records it. */
    attemptDelivery: (input: Parameters<typeof attemptDelivery>[1]) => attemptDelivery(deps, input),
    /** Marks a delivery failed once its attempts are exhausted. */
    giveUpDelivery: (input: Parameters<typeof giveUpDelivery>[1]) => giveUpDelivery(deps.orm, input),
  };
}

export type Activities = ReturnType<typeof createActivities>;
