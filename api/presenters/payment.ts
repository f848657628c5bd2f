import type { z } from 'zod';
import type { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import type { Payable } from '../../db/payments/payable.entity.ts';
import type { PaymentRelations } from '../../db/payments/payment.repository.ts';
import type { Payment } from '../../db/payments/payment.entity.ts';
import type { PaymentDetail, PaymentListItem } from '../schemas/payments.ts';
import { centsToAmount, decimalToNumber, isoDate, isoDateTime } from './money.ts';

type ListItem = z.input<typeof PaymentListItem>;
type Detail = z.input<typeof PaymentDetail>;

/** Documents received from the tax authority are `fiscal_entity`; others say how they were created. */
const documentOrigin = (document: Document) => (document.createdBy?.source === 'fiscal' ? 'fiscal_entity' : (document.createdBy?.source ?? 'manual'));

function presentDocument(document: Document | null | undefined): ListItem['document'] {
  if (!document) return null;
  return {
    reference: document.id,
    type: document.type,
    document_number: document.documentNumber,
    fiscal_reference: document.fiscalReference ?? null,
    origin: documentOrigin(document),
    amount: centsToAmount(document.amountCents),
    amount_currency: document.currency,
    is_canceled: document.isCanceled,
  };
}

/** A payable as a payment shows it; the document's payables add their installment and cost center. */
export function presentPayable(payable: Payable): ListItem['payable'] {
  return {
    reference: payable.id,
    type: payable.type,
    status: payable.status,
    amount: centsToAmount(payable.amountCents),
    amount_currency: payable.currency,
    file_path: payable.filePath ?? null,
    balance: centsToAmount(payable.balanceCents),
    issue_date: isoDate(payable.issueDate),
    expiration_date: isoDate(payable.expirationDate),
    concept: payable.concept ?? null,
    origin: payable.origin,
    projects: payable.projects ?? [],
  };
}

const beneficiaryBase = (beneficiary: Beneficiary) => ({
  reference: beneficiary.id,
  name: beneficiary.name,
  identifier_type: beneficiary.identifierType,
  identifier_number: beneficiary.identifierNumber,
  is_deleted: beneficiary.isDeleted,
  deleted_at: isoDateTime(beneficiary.deletedAt),
});

const contactsOf = (beneficiary: Beneficiary) => (beneficiary.contacts.isInitialized() ? beneficiary.contacts.getItems() : []);

function base(payment: Payment, relations: PaymentRelations) {
  return {
    reference: payment.id,
    document: presentDocument(payment.payable.document),
    amount: centsToAmount(payment.amountCents),
    exchange_amount: centsToAmount(payment.exchangeAmountCents ?? payment.amountCents),
    amount_currency: payment.currency,
    exchange_currency: payment.exchangeCurrency ?? null,
    exchange_rate: decimalToNumber(payment.exchangeRate),
    status: payment.status,
    file_path: payment.filePath ?? null,
    receipt_file_path: payment.receiptFilePath ?? null,
    is_archived: payment.isArchived,
    batch: payment.batch ? { reference: payment.batch.id, name: payment.batch.name, status: payment.batch.status } : null,
    tags: relations.tags.get(payment.id) ?? [],
    source_of_fund: payment.sourceOfFund ?? null,
    accounting_receipt: payment.accountingReceipt ?? null,
    paid_at: isoDateTime(payment.paidAt),
    payment_method: payment.paymentMethod ?? null,
    created_at: payment.createdAt.toISOString(),
    updated_at: payment.updatedAt.toISOString(),
  };
}

/** A payment as the list shows it; its payable, document, beneficiary and batch must be loaded. */
export function presentPaymentListItem(payment: Payment, relations: PaymentRelations): ListItem {
  return {
    ...base(payment, relations),
    beneficiary: { ...beneficiaryBase(payment.beneficiary), contact_information: contactsOf(payment.beneficiary).map((contact) => ({ type: contact.type, value: contact.value })) },
    email: payment.beneficiary.email ?? null,
    payable: presentPayable(payment.payable),
  };
}

/** A payment with everything the detail adds: beneficiary type and contacts, cost center, gateway and ERP fields. */
export function presentPaymentDetail(payment: Payment, relations: PaymentRelations): Detail {
  const payable = payment.payable;
  return {
    ...base(payment, relations),
    beneficiary: {
      ...beneficiaryBase(payment.beneficiary),
      type: payment.beneficiary.type,
      contact_information: contactsOf(payment.beneficiary).map((contact) => ({ reference: contact.id, type: contact.type, value: contact.value })),
    },
    payable: { ...presentPayable(payable), cost_center: payable.costCenter ?? null },
    payment_gateway: payment.paymentGateway ?? null,
    has_erp_payment: Boolean(payment.erpPaymentReference || payment.erpPayment),
    erp_payment_reference: payment.erpPaymentReference ?? null,
    is_fiscal_entity: payable.origin === 'fiscal_entity' || (payable.document ? documentOrigin(payable.document) === 'fiscal_entity' : false),
    has_erp_payable: Boolean(payment.erpPayableReference || payment.erpPayable),
    erp_payable_reference: payment.erpPayableReference ?? null,
    erp_payable: payment.erpPayable ?? null,
    erp_payment: payment.erpPayment ?? null,
  };
}
