import type { Processes } from '../services/processes.ts';
import { askAccounting, startDocumentLifecycle } from './documents.ts';
import type { TemporalHandle } from './handle.ts';
import { cancelPaymentOfCanceledDocument, joinPaymentBatch } from './payments.ts';
import { startReceptionEventBatch, startReceptionEvents, wakeReceptionEvent } from './reception-events.ts';
import { queueDeliveries, startDeliveries, type RetrySchedule } from './webhooks.ts';

/** The processes services set going, run as this deployment's Temporal workflows. */
export function temporalProcesses(temporal: TemporalHandle, webhookRetry: RetrySchedule): Processes {
  return {
    startDocumentLifecycle: (document, position) => startDocumentLifecycle(temporal, document, position),
    askAccounting: (document) => askAccounting(temporal, document),
    startDeliveries: (deliveries, options) => startDeliveries(temporal, webhookRetry, deliveries, options),
    queueDeliveries: (deliveries) => queueDeliveries(temporal, webhookRetry, deliveries),
    startReceptionEvents: (companyId, events, timing) => startReceptionEvents(temporal, companyId, events, timing),
    wakeReceptionEvent: (companyId, event, timing) => wakeReceptionEvent(temporal, companyId, event, timing),
    startReceptionEventBatch: (companyId, batchId) => startReceptionEventBatch(temporal, companyId, batchId),
    joinPaymentBatch: (paymentId, batchId) => joinPaymentBatch(temporal, paymentId, batchId),
    cancelPayment: (paymentId, reason) => cancelPaymentOfCanceledDocument(temporal, paymentId, reason),
  };
}
