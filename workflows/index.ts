// The workflow bundle's entry: every workflow of the product is exported from here.
export { documentLifecycle } from './document.ts';
export { webhookDelivery } from './webhook.ts';
