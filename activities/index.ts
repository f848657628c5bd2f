import { Context } from '@temporalio/activity';
import type { Logger } from 'pino';
import { systemEm, type Orm } from '../db/orm.ts';
import type { OutboundPolicy } from '../platform/outbound-policy.ts';
import { Refusal } from '../platform/refusal.ts';
import type { OutsideSystems } from '../platform/outside-systems.ts';
import { bankValidationClient } from '../services/beneficiaries/validation-client.ts';
import * as bankValidation from '../services/beneficiaries/validations.ts';
import { paymentGatewayClient } from '../services/payments/gateway-client.ts';
import * as gatewayPayments from '../services/payments/transfers.ts';
import * as batches from '../services/payments/batches.ts';
import * as payments from '../services/payments/payments.ts';
import * as rescheduling from '../services/payments/reschedule-payment.ts';
import { cancelPayment } from '../services/payments/cancel-payment.ts';
import { expiringCertificates } from '../services/dian/certificates.ts';
import * as lifecycle from '../services/documents/lifecycle.ts';
import * as accounting from '../services/accounting/accounting.ts';
import * as receptionEvents from '../services/reception-events/reception-events.ts';
import { refusalsAsFailures } from './failures.ts';
import { fiscalSyncActivities } from './fiscal-sync.ts';
import { heartbeating } from './heartbeat.ts';
import type { FileStorage } from '../platform/storage/file-storage.ts';
import { attemptDelivery, giveUpDelivery } from '../services/webhooks/deliver.ts';
import type { Processes } from '../services/processes.ts';
import type { SecretBox } from '../platform/secret-box.ts';
import type { DianSettings } from '../services/dian/settings.ts';
import type { IntakeLimits } from '../fiscal/intake-limits.ts';
import type { SatTransferSettings } from '../services/fiscal-sync/sat-provider-client.ts';

/** What activities are built from: injected, so tests and processes wire them their own way. */
export interface ActivityDeps {
  orm: Orm;
  logger: Logger;
  storage: FileStorage;
  /** Starts the processes activities set going (a document's lifecycle, its webhooks, reception events). */
  processes: Processes;
  /** The API's public URL, for the links in webhook payloads. */
  publicUrl: string;
  /** Opens the sealed webhook secrets. */
  secrets: SecretBox;
  /** Which webhook receivers may be reached. */
  outbound: OutboundPolicy;
  outside: OutsideSystems;
  /** Which DIAN reception events go to, and as which software. */
  dian: DianSettings;
  /** The caps on what fiscal intake reads. */
  intake: IntakeLimits;
  /** How long the SAT provider may keep a request waiting, and how slowly a package may come. */
  satTransfer: SatTransferSettings;
  /** Tests shorten the days ahead of a payment's pay date (`PAYMENT_DAY_MS`); null: real days. */
  paymentDayMs: number | null;
}

/** One attempt of a delivery, counted and timed in the worker's metrics. */
async function measuredAttempt(deps: ActivityDeps, input: Parameters<typeof attemptDelivery>[1]) {
  const started = performance.now();
  const result = await attemptDelivery(deps, input);
  const meter = Context.current().metricMeter;
  meter
    .createCounter('webhook_delivery_attempts', 'attempts', 'Webhook delivery attempts by event and outcome')
    .add(1, { event: result.event, outcome: result.outcome });
  meter
    .createHistogram('webhook_delivery_latency', 'float', 's', 'Webhook attempt latency')
    .record((performance.now() - started) / 1000, { event: result.event });
  return result;
}

/** Every activity of the product, built over its dependencies and registered on the worker. */
export function createActivities(deps: ActivityDeps) {
  const gateway = () => ({ orm: deps.orm, gateway: paymentGatewayClient(deps.outside.paymentGatewayUrl) });
  return refusalsAsFailures({
    /** Where a document's flow stands (read state is the source of truth for completed steps). */
    loadLifecycle: (input: Parameters<typeof lifecycle.loadLifecycle>[1]) => lifecycle.loadLifecycle(deps.orm, input),
    /** Writes a flow step as it opens. */
    openStep: (input: Parameters<typeof lifecycle.openStep>[1]) => lifecycle.openStep(deps.orm, input),
    /** Takes back a pending step decided elsewhere, for a question of the accounting agent's. */
    withdrawStep: (input: Parameters<typeof lifecycle.withdrawStep>[1]) => lifecycle.withdrawStep(deps.orm, input),
    /** Records a decision on a step, and its outcome when it closes the step. */
    completeStep: (input: Parameters<typeof lifecycle.completeStep>[1]) => lifecycle.completeStep(deps.orm, input),
    /** Approves a document (with its ERP reference) and generates its payables. */
    approveDocument: (input: Parameters<typeof lifecycle.approveDocument>[1]) =>
      lifecycle.approveDocument(deps.orm, input),
    /**
     * Accounts an approved document by itself (when its company accounts by itself and receives the voucher), or
     * hands the voucher over once a person answered what the agent asked; answers the next question, if any.
     */
    accountAutomatically: async (input: { companyId: string; documentId: string }) => {
      try {
        const { question } = await accounting.accountDocument(
          { orm: deps.orm, processes: deps.processes, publicUrl: deps.publicUrl },
          { ...input, automatic: true },
        );
        return question;
      } catch (error) {
        // The lifecycle stops retrying on DocumentNotFound, as its other activities say it.
        if (error instanceof accounting.AccountingRefused && error.code === 'document_not_found')
          throw new Refusal('DocumentNotFound', error.message);
        throw error;
      }
    },
    /** Sends one signed attempt of a webhook delivery and records it. */
    attemptDelivery: (input: Parameters<typeof attemptDelivery>[1]) => heartbeating(() => measuredAttempt(deps, input)),
    /**
     * First attempts of queued deliveries, together: for each, whether it is settled, to be retried, or not sent
     * (its attempt was not recorded: its own workflow makes it again).
     */
    attemptDeliveries: (input: { companyId: string; attempts: { deliveryId: string; attempt: number }[] }) =>
      heartbeating(() =>
        Promise.all(
          input.attempts.map(async ({ deliveryId, attempt }) => {
            try {
              const result = await measuredAttempt(deps, { companyId: input.companyId, deliveryId, attempt });
              return result.outcome === 'retry' ? ('retry' as const) : ('settled' as const);
            } catch (error) {
              deps.logger.warn({ err: error, deliveryId }, 'queued delivery attempt not made');
              return 'unsent' as const;
            }
          }),
        ),
      ),
    /** Marks a delivery failed once its attempts are exhausted. */
    giveUpDelivery: (input: Parameters<typeof giveUpDelivery>[1]) => giveUpDelivery(deps.orm, input),
    /** Writes a new payment (and a manual payment's payable), checked under a lock on the payable; answers when it goes. */
    createPayment: (input: Parameters<typeof payments.createPayment>[1]) => payments.createPayment(deps, input),
    /** Moves a pending payment's date, and notifies `payment.rescheduled`. */
    reschedulePayment: async (input: Parameters<typeof rescheduling.reschedulePayment>[1]) => {
      const { deliveries, ...rescheduled } = await rescheduling.reschedulePayment(deps, input);
      await deps.processes.startDeliveries(deliveries);
      return rescheduled;
    },
    /** Cancels a pending payment. */
    cancelPayment: (input: Parameters<typeof cancelPayment>[1]) => cancelPayment(deps, input),
    /** Hands a payment's transfer to the gateway (idempotent per payment) and marks it in_process, or says why it waits. */
    submitPayment: (input: Parameters<typeof gatewayPayments.submitPayment>[1]) =>
      gatewayPayments.submitPayment(gateway(), input),
    /** Asks the gateway where a transfer stands. */
    checkTransfer: (input: Parameters<typeof gatewayPayments.checkTransfer>[1]) =>
      gatewayPayments.checkTransfer(gateway(), input),
    /** Asks each payment of a batch to join it; answers those that did. */
    joinPaymentsToBatch: (input: Parameters<typeof batches.joinPaymentsToBatch>[1]) =>
      batches.joinPaymentsToBatch(deps, input),
    /** Hands a batch's payments to the gateway as one bulk transfer. */
    submitPaymentBatch: (input: Parameters<typeof batches.submitBatch>[1]) => batches.submitBatch(gateway(), input),
    /** A payment left out of its batch goes on alone. */
    leavePaymentBatch: (input: Parameters<typeof batches.leaveBatch>[1]) => batches.leaveBatch(deps, input),
    /** The pending payments of an account's beneficiary, which a change of its validation may let go. */
    pendingPaymentsOfAccount: (input: Parameters<typeof payments.pendingPaymentsOfAccount>[1]) =>
      payments.pendingPaymentsOfAccount(deps.orm, input),
    /** Records a payment's outcome and keeps its payable and document payment status current. */
    recordPaymentOutcome: (input: Parameters<typeof payments.recordPaymentOutcome>[1]) =>
      payments.recordPaymentOutcome(deps.orm, input),
    /** Sends a bank account to the validation service and marks it processing. */
    beginAccountValidation: (input: Parameters<typeof bankValidation.beginAccountValidation>[1]) =>
      bankValidation.beginAccountValidation(
        { orm: deps.orm, validation: bankValidationClient(deps.outside.bankValidationUrl) },
        input,
      ),
    /** Asks the validation service where a validation stands. */
    checkAccountValidation: (input: Parameters<typeof bankValidation.checkAccountValidation>[1]) =>
      bankValidation.checkAccountValidation(
        { orm: deps.orm, validation: bankValidationClient(deps.outside.bankValidationUrl) },
        input,
      ),
    /** Writes a bank account's validation outcome unless a later change superseded it. */
    recordAccountValidation: (input: Parameters<typeof bankValidation.recordAccountValidation>[1]) =>
      bankValidation.recordAccountValidation(deps.orm, input),
    /** Checks a RADIAN event against DIAN's ordering rules and, when they allow it, sends it and records DIAN's answer. */
    advanceReceptionEvent: (input: receptionEvents.ReceptionEventSubject) =>
      receptionEvents.advanceReceptionEvent(deps, input),
    /** Starts (or finds running) the workflow of each event of a batch. */
    startReceptionEventWorkflows: (input: Parameters<typeof receptionEvents.startBatchWorkflows>[1]) =>
      receptionEvents.startBatchWorkflows(deps, input),
    /** Logs a warning for each company's signing certificate that expires within 30 days (or has expired). */
    warnExpiringCertificates: async () => {
      const expiring = await expiringCertificates(systemEm(deps.orm), new Date());
      for (const certificate of expiring)
        deps.logger.warn(
          {
            company: certificate.companyId,
            nit: certificate.nit,
            notAfter: certificate.notAfter,
            daysLeft: certificate.daysLeft,
          },
          certificate.expired
            ? "a company's signing certificate has expired: its DIAN events are not sent until its renewal is registered (ops fiscal certificate)"
            : "a company's signing certificate expires soon: register its renewal (ops fiscal certificate)",
        );
      return expiring.length;
    },
    /** Starts the batch workflow of every batch whose API never started it. */
    handOverStrandedReceptionEventBatches: (input: Parameters<typeof receptionEvents.handOverStrandedBatches>[1]) =>
      receptionEvents.handOverStrandedBatches(deps, input),
    /** Records a RADIAN event as failed (DIAN unreachable after every retry). */
    failReceptionEvent: (input: Parameters<typeof receptionEvents.failReceptionEvent>[1]) =>
      receptionEvents.failReceptionEvent(deps, input),
    ...fiscalSyncActivities(deps),
  });
}

export type Activities = ReturnType<typeof createActivities>;
