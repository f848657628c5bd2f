/**
 * Workflow ids are business keys, so that a repeated start finds the running instance instead of making a second one.
 * One home for all of them: workflows that signal each other and the clients that start them use the same.
 */
export const workflowIds = {
  document: (documentId: string) => `document/${documentId}`,
  payment: (paymentId: string) => `payment/${paymentId}`,
  paymentBatch: (batchId: string) => `payment-batch/${batchId}`,
  bankAccountValidation: (accountId: string, attempt: number) => `bank-account-validation/${accountId}/${attempt}`,
  fiscalSync: (companyId: string, startedAt: string) => `fiscal-sync/${companyId}/${startedAt}`,
  receptionEvent: (companyId: string, cufe: string, eventType: string) =>
    `reception-event/${companyId}/${cufe}/${eventType}`,
  receptionEventBatch: (companyId: string, batchId: string) => `reception-event-batch/${companyId}/${batchId}`,
  webhook: (subscriptionId: string, eventId: string) => `webhook/${subscriptionId}/${eventId}`,
  webhookQueue: (subscriptionId: string) => `webhook-queue/${subscriptionId}`,
};
