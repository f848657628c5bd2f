import { getExternalWorkflowHandle } from '@temporalio/workflow';
import { deliverEvent, type DeliveryOutcome, type WebhookDeliveryInput } from './delivery.ts';
import { accountingRegisteredSignal } from './document.ts';
import { workflowIds } from './ids.ts';

/**
 * Delivers one event to one subscription, as workflow `webhook/<subscriptionRef>/<eventId>`: every event but a
 * document's `document.created`, whose first attempt its subscription's queue makes (the rest of its schedule runs
 * here), and an operator's redelivery.
 */
export async function webhookDelivery(input: WebhookDeliveryInput): Promise<DeliveryOutcome> {
  const outcome = await deliverEvent(input);
  // A registered voucher resolves the document's accounting step.
  if (outcome === 'delivered' && input.event === 'document.accounted' && input.documentId)
    await getExternalWorkflowHandle(workflowIds.document(input.documentId))
      .signal(accountingRegisteredSignal)
      .catch(() => undefined);
  return outcome;
}
