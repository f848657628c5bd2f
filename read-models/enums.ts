// The domain's enumerations as named schemas: the OpenAPI document has each once, as a component every use refers to,
// so that client generators make one type of each, named after what it is, not one per place it appears.
import { z } from 'zod';
import { ACCOUNT_TYPES } from '../db/beneficiaries/bank-account.entity.ts';
import { BENEFICIARY_TYPES } from '../db/beneficiaries/beneficiary.entity.ts';
import { CONTACT_TYPES } from '../db/beneficiaries/contact.entity.ts';
import { APPROVAL_STATUSES, DOCUMENT_PAYMENT_STATUSES, DOCUMENT_TYPES } from '../db/documents/document.entity.ts';
import { PAYABLE_STATUSES, PAYABLE_TYPES } from '../db/payments/payable.entity.ts';
import { PAYMENT_STATUSES } from '../db/payments/payment.entity.ts';
import { RECEPTION_EVENT_STATUSES, RECEPTION_EVENT_TYPES } from '../db/reception-events/reception-event.entity.ts';

export const DocumentType = z.enum(DOCUMENT_TYPES).meta({
  id: 'DocumentType',
  description: [
    "`expense`: a cost that is not a supplier's invoice.",
    "In Colombia, a purchase from a seller not obliged to invoice, backed by the company's own DIAN documento soporte (imported like an invoice);",
    'in both countries, a reimbursable or non-invoiced cost an operator or integrator records with its receipt (POST /documents).',
    'It is approved and paid like an invoice',
  ].join(' '),
});
export const ApprovalStatus = z.enum(APPROVAL_STATUSES).meta({ id: 'ApprovalStatus' });
export const DocumentPaymentStatus = z.enum(DOCUMENT_PAYMENT_STATUSES).meta({
  id: 'DocumentPaymentStatus',
  description: "How much of a document's payables processed payments cover",
});
export const PaymentStatus = z.enum(PAYMENT_STATUSES).meta({
  id: 'PaymentStatus',
  description: [
    'pending (created; waiting for its pay date and a validated bank account), in_process (with the gateway),',
    'processed (credited), failed (refused by the gateway, or canceled by an operator with a reason)',
  ].join(' '),
});
export const PayableType = z.enum(PAYABLE_TYPES).meta({ id: 'PayableType' });
export const PayableStatus = z.enum(PAYABLE_STATUSES).meta({
  id: 'PayableStatus',
  description:
    '`pending`, `partial` or `paid` as processed payments cover `amount` (`balance` = amount − processed payments); `canceled` stays',
});
export const BeneficiaryType = z.enum(BENEFICIARY_TYPES).meta({ id: 'BeneficiaryType' });
export const ContactType = z.enum(CONTACT_TYPES).meta({ id: 'ContactType' });
export const AccountType = z.enum(ACCOUNT_TYPES).meta({ id: 'AccountType' });
export const ReceptionEventType = z.enum(RECEPTION_EVENT_TYPES).meta({
  id: 'ReceptionEventType',
  description: 'DIAN event code: 030 acuse, 031 reclamo, 032 recibo, 033 aceptación expresa, 034 aceptación tácita',
});
export const ReceptionEventStatus = z.enum(RECEPTION_EVENT_STATUSES).meta({ id: 'ReceptionEventStatus' });
export const StepKind = z.enum(['approval', 'classification', 'tagging']).meta({ id: 'StepKind' });
