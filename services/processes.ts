import type { DeliveryToStart } from '../db/webhooks/webhook-delivery.repository.ts';
import type { LifecycleSnapshot } from './documents/lifecycle.ts';
import type { QueuedReceptionEvent } from '../db/reception-events/reception-event.repository.ts';
import type { ReceptionEventTiming } from '../db/reception-events/reception-event-batch.entity.ts';

/** A received document, as its lifecycle process is started and found by operators. */
export interface LifecycleSubject {
  companyId: string;
  documentId: string;
  fiscalReference: string | null;
  documentNumber: string;
  approvalStatus: string;
  /** What an operator reads its flow as: the document's type, issuer and total. */
  type: string;
  supplierName: string | null;
  amountCents: bigint;
  currency: string;
}

/**
 * The long-running processes a service sets going. Temporal runs them (`temporal/processes.ts`); the caller (an
 * activity, the CLI) gives them to the service, which never talks to Temporal itself. Starting one that already runs
 * is a no-op, so a retried service call starts nothing twice.
 */
export interface Processes {
  /**
   * A received document's flow, `document/<reference>`. `position`: where its flow stands, when the caller has just
   * recorded it; the process reads it otherwise.
   */
  startDocumentLifecycle(document: LifecycleSubject, position?: LifecycleSnapshot): Promise<void>;
  /**
   * Tells a document's flow that its voucher waits for a person's answer (an operator's run, a catalog sync found
   * it so), so that it opens the step that asks; a flow that has ended runs again to ask.
   */
  askAccounting(document: LifecycleSubject): Promise<void>;
  /** The delivery of recorded webhook events; `redeliver` sends a finished one once more (an operator's request). */
  startDeliveries(deliveries: readonly DeliveryToStart[], options?: { redeliver?: boolean }): Promise<void>;
  /**
   * The same, for events recorded many at a time (`document.created`): queued on their subscriptions, whose first
   * attempts go out in batches; a delivery they do not settle goes on in its own process.
   */
  queueDeliveries(deliveries: readonly DeliveryToStart[]): Promise<void>;
  /** The workflows of queued reception events, with their pacing. */
  startReceptionEvents(
    companyId: string,
    events: readonly QueuedReceptionEvent[],
    timing: ReceptionEventTiming,
  ): Promise<void>;
  /** A processing reception event that may wait for an earlier one of its document. */
  wakeReceptionEvent(
    companyId: string,
    event: Omit<QueuedReceptionEvent, 'resubmitted'>,
    timing: ReceptionEventTiming,
  ): Promise<void>;
  /** A queued batch of reception events whose workflow never started. */
  startReceptionEventBatch(companyId: string, batchId: string): Promise<void>;
  /** Asks a pending payment to go with a batch; false when it is already on its way (or changing). */
  joinPaymentBatch(paymentId: string, batchId: string): Promise<boolean>;
  /**
   * Cancels a pending payment through its process, as `ops payments cancel` does, because its document was cancelled
   * before the tax authority (`reason` says how). Refused once its money may have left: the refusal's code is answered
   * (`payment_in_process`, `payment_in_batch`, `payment_final`), never thrown.
   */
  cancelPayment(paymentId: string, reason: string): Promise<PaymentCancellation>;
}

/** What a payment's process answered to a cancellation. */
export type PaymentCancellation =
  { canceled: true; failureReason: string } | { canceled: false; code: string; message: string };
