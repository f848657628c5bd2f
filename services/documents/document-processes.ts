import type { Document } from '../../db/documents/document.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { Processes } from '../processes.ts';
import { undeliveredEventsOf } from '../webhooks/events.ts';

/**
 * What follows a recorded document, imported or created: its lifecycle, which also delivers its `document.created`
 * event (recorded with it). On a retried write it starts what a crash may have left unstarted; what runs already is
 * left as it is.
 */
export async function startDocumentProcesses(
  processes: Processes,
  em: EntityManager,
  document: Pick<Document, 'id' | 'company' | 'fiscalReference' | 'documentNumber' | 'approvalStatus'>,
): Promise<void> {
  const undelivered = await undeliveredEventsOf(em.fork(), document.id, 'document.created');
  await processes.startDocumentLifecycle(
    {
      companyId: document.company.id,
      documentId: document.id,
      fiscalReference: document.fiscalReference ?? null,
      documentNumber: document.documentNumber,
      approvalStatus: document.approvalStatus,
    },
    undelivered,
  );
}
