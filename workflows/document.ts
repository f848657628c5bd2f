import { log } from '@temporalio/workflow';

export interface DocumentLifecycleInput {
  companyId: string;
  documentId: string;
}

/**
 * The life of one received document, as workflow `document/<reference>`: started when the document is imported.
 * Approval flows, steps and payables are added to it by the lifecycle work.
 */
export async function documentLifecycle(input: DocumentLifecycleInput): Promise<void> {
  log.info('document received', { documentId: input.documentId });
}
