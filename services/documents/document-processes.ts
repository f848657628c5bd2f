import type { Document } from '../../db/documents/document.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import type { FlowStepDefinition } from '../../db/workflow-steps/workflow-flow.entity.ts';
import type { Processes } from '../processes.ts';
import { newDocumentPosition } from './lifecycle.ts';
import { undeliveredEventsOf } from '../webhooks/events.ts';

/** A document the caller has just written: its `document.created` deliveries, and its company's flow. */
export interface JustRecorded {
  deliveries: DeliveryToStart[];
  flow: FlowStepDefinition[];
}

/**
 * What follows a recorded document, imported or created: its lifecycle, and its `document.created` deliveries
 * (recorded with it), queued on their subscriptions. Without `recorded` (a retried write) it starts what a crash may
 * have left unstarted, and what runs already is left as it is.
 */
export async function startDocumentProcesses(
  processes: Processes,
  em: EntityManager,
  document: Pick<Document, 'id' | 'fiscalReference' | 'documentNumber' | 'approvalStatus'> & {
    company: { id: string };
  },
  recorded?: JustRecorded,
): Promise<void> {
  const deliveries = recorded?.deliveries ?? (await undeliveredEventsOf(em.fork(), document.id, 'document.created'));
  await Promise.all([
    processes.startDocumentLifecycle(
      {
        companyId: document.company.id,
        documentId: document.id,
        fiscalReference: document.fiscalReference ?? null,
        documentNumber: document.documentNumber,
        approvalStatus: document.approvalStatus,
      },
      recorded && newDocumentPosition(recorded.flow),
    ),
    deliveries.length ? processes.queueDeliveries(deliveries) : undefined,
  ]);
}
