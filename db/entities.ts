import { AccountingEntry } from './accounting/accounting-entry.entity.ts';
import { AccountingSetting } from './accounting/accounting-setting.entity.ts';
import { BookAccountRule } from './accounting/book-account-rule.entity.ts';
import { ErpDocument } from './accounting/erp-document.entity.ts';
import { Bank } from './banks/bank.entity.ts';
import { BeneficiaryBankAccount } from './beneficiaries/bank-account.entity.ts';
import { Beneficiary } from './beneficiaries/beneficiary.entity.ts';
import { BeneficiaryContact } from './beneficiaries/contact.entity.ts';
import { ApiKey } from './companies/api-key.entity.ts';
import { Company } from './companies/company.entity.ts';
import { Member } from './companies/member.entity.ts';
import { ActivityLog } from './documents/activity-log.entity.ts';
import { Document } from './documents/document.entity.ts';
import { LineItem } from './documents/line-item.entity.ts';
import { DocumentNote } from './documents/note.entity.ts';
import { PaymentReceiptComplement } from './documents/payment-receipt-complement.entity.ts';
import { ErpBookAccount } from './erp/book-account.entity.ts';
import { ErpCostCenter } from './erp/cost-center.entity.ts';
import { ErpPaymentTerm } from './erp/payment-term.entity.ts';
import { ErpProduct } from './erp/product.entity.ts';
import { ErpPurchaseOrder } from './erp/purchase-order.entity.ts';
import { ErpTax } from './erp/tax.entity.ts';
import { ErpVendor } from './erp/vendor.entity.ts';
import { FiscalCredential } from './fiscal/fiscal-credential.entity.ts';
import { FiscalMailboxMessage } from './fiscal/fiscal-mailbox-message.entity.ts';
import { FiscalMailbox } from './fiscal/fiscal-mailbox.entity.ts';
import { IntakeRefusal } from './fiscal/intake-refusal.entity.ts';
import { SigningCertificate } from './fiscal/signing-certificate.entity.ts';
import { FiscalSyncRun } from './fiscal/fiscal-sync-run.entity.ts';
import { IdempotencyKey } from './idempotency/idempotency-key.entity.ts';
import { Payable } from './payments/payable.entity.ts';
import { PaymentBatch } from './payments/payment-batch.entity.ts';
import { Payment } from './payments/payment.entity.ts';
import { AgentSetting } from './recommendations/agent-setting.entity.ts';
import { ReceptionEventBatch } from './reception-events/reception-event-batch.entity.ts';
import { ReceptionEvent } from './reception-events/reception-event.entity.ts';
import { DocumentTag } from './tags/document-tag.entity.ts';
import { PaymentTag } from './tags/payment-tag.entity.ts';
import { Tag } from './tags/tag.entity.ts';
import { WebhookDeliveryAttempt } from './webhooks/webhook-delivery-attempt.entity.ts';
import { WebhookDelivery } from './webhooks/webhook-delivery.entity.ts';
import { WebhookSubscription } from './webhooks/webhook-subscription.entity.ts';
import { WorkflowFlow } from './workflow-steps/workflow-flow.entity.ts';
import { WorkflowStep } from './workflow-steps/workflow-step.entity.ts';

/** Entities owned by one company: the tenant filter scopes every query on them. */
export const TENANT_ENTITIES = [
  ApiKey,
  Member,
  Beneficiary,
  BeneficiaryContact,
  BeneficiaryBankAccount,
  Document,
  LineItem,
  DocumentNote,
  ActivityLog,
  PaymentReceiptComplement,
  Tag,
  DocumentTag,
  PaymentTag,
  Payable,
  PaymentBatch,
  Payment,
  ReceptionEvent,
  ReceptionEventBatch,
  WorkflowStep,
  WorkflowFlow,
  AgentSetting,
  AccountingEntry,
  AccountingSetting,
  BookAccountRule,
  ErpDocument,
  ErpCostCenter,
  ErpVendor,
  ErpProduct,
  ErpTax,
  ErpBookAccount,
  ErpPaymentTerm,
  ErpPurchaseOrder,
  WebhookSubscription,
  WebhookDelivery,
  WebhookDeliveryAttempt,
  FiscalCredential,
  SigningCertificate,
  FiscalSyncRun,
  IntakeRefusal,
  FiscalMailbox,
  FiscalMailboxMessage,
  IdempotencyKey,
];

/** Every entity: the company-owned ones, companies themselves, and the banks shared by all. */
export const ENTITIES = [Company, Bank, ...TENANT_ENTITIES];
