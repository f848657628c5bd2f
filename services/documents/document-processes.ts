import type { Document } from '../../db/documents/document.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import type { FlowStepDefinition } from '../../db/workflow-steps/workflow-flow.entity.ts';
import type { LifecycleSubject, Processes } from '../processes.ts';
import { newDocumentPosition } from './lifecycle.ts';
import { undeliveredEventsOf } from '../webhooks/events.ts';

/** A document the caller has just written: its `document.created` deliveries, and its company's flow. */
export interface JustRecorded {
  deliveries: DeliveryToStart[];
  flow: FlowStepDefinition[];
}

/** The flow's subject of a document read whole; its issuer's name when its beneficiary was loaded with it. */
export function lifecycleSubjectOf(
  document: Pick<
    Document,
    'id' | 'company' | 'fiscalReference' | 'documentNumber' | 'approvalStatus' | 'type' | 'amountCents' | 'currency'
  > & { beneficiary?: { name?: string | null } | null },
): LifecycleSubject {
  return {
    companyId: document.company.id,
    documentId: document.id,
    fiscalReference: document.fiscalReference ?? null,
    documentNumber: document.documentNumber,
    approvalStatus: document.approvalStatus,
    type: document.type,
    supplierName: document.beneficiary?.name ?? null,
    amountCents: document.amountCents,
    currency: document.currency,
  };
}

/**
 * What follows a recorded document, imported or created: its lifecycle, and its `document.created` deliveries
 * (recorded with it), queued on their subscriptions. Without `recorded` (a retried write) it starts what a crash may
 * have left unstarted, and what runs already is left as it is.
 */
export async function startDocumentProcesses(
  processes: Processes,
  em: EntityManager,
  document: LifecycleSubject,
  recorded?: JustRecorded,
): Promise<void> {
  const deliveries =
    recorded?.deliveries ?? (await undeliveredEventsOf(em.fork(), document.documentId, 'document.created'));
  await Promise.all([
    processes.startDocumentLifecycle(document, recorded && newDocumentPosition(recorded.flow)),
    deliveries.length ? processes.queueDeliveries(deliveries) : undefined,
  ]);
}
