// The workflow bundle's entry: every workflow of the product is exported from here, each with its versioning behaviour.
import './versioning.ts';

export { documentLifecycle } from './document.ts';
export { webhookDelivery } from './webhook.ts';
export { webhookDeliveryQueue } from './delivery-queue.ts';
export { paymentProcess } from './payment.ts';
export { paymentBatch } from './payment-batch.ts';
export { bankAccountValidation } from './bank-account-validation.ts';
export { receptionEvent, receptionEventBatch } from './reception-event.ts';
export { housekeeping } from './housekeeping.ts';
export { fiscalSync } from './fiscal-sync.ts';
