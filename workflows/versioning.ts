// How each workflow type meets a new build (docs/reliability.md, "Versioning"). Pinned ones finish on the build that
// started them: they are short, and a new build never replays them. AutoUpgrade ones live for weeks and move to the
// current build at their next task: an incompatible change to them goes behind `patched()`.
import type { VersioningBehavior } from '@temporalio/common';
import { setWorkflowOptions, workflowInfo } from '@temporalio/workflow';
import { bankAccountValidation } from './bank-account-validation.ts';
import { webhookDeliveryQueue } from './delivery-queue.ts';
import { documentLifecycle } from './document.ts';
import { fiscalSync } from './fiscal-sync.ts';
import { housekeeping } from './housekeeping.ts';
import { paymentBatch } from './payment-batch.ts';
import { paymentProcess } from './payment.ts';
import { receptionEvent, receptionEventBatch } from './reception-event.ts';
import { webhookDelivery } from './webhook.ts';

export const VERSIONING_BEHAVIOURS = {
  documentLifecycle: 'AUTO_UPGRADE',
  paymentProcess: 'AUTO_UPGRADE',
  webhookDeliveryQueue: 'AUTO_UPGRADE',
  housekeeping: 'AUTO_UPGRADE',
  webhookDelivery: 'PINNED',
  paymentBatch: 'PINNED',
  bankAccountValidation: 'PINNED',
  receptionEvent: 'PINNED',
  receptionEventBatch: 'PINNED',
  fiscalSync: 'PINNED',
} as const satisfies Record<string, VersioningBehavior>;

const WORKFLOWS = {
  documentLifecycle,
  paymentProcess,
  webhookDeliveryQueue,
  housekeeping,
  webhookDelivery,
  paymentBatch,
  bankAccountValidation,
  receptionEvent,
  receptionEventBatch,
  fiscalSync,
} satisfies Record<keyof typeof VERSIONING_BEHAVIOURS, unknown>;

// Only a versioned worker may state a behaviour (the server refuses the task of an unversioned one that does); an
// unversioned one has a build id of its own, but no deployment.
for (const [name, workflow] of Object.entries(WORKFLOWS))
  setWorkflowOptions(
    () =>
      workflowInfo().currentDeploymentVersion?.deploymentName
        ? { versioningBehavior: VERSIONING_BEHAVIOURS[name as keyof typeof VERSIONING_BEHAVIOURS] }
        : {},
    workflow as (...args: never[]) => Promise<unknown>,
  );
