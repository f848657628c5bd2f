import type { z } from 'zod';
import type { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import type { DocumentRelations, Relation } from '../../db/documents/document.repository.ts';
import type { LineItem } from '../../db/documents/line-item.entity.ts';
import type { DocumentNote } from '../../db/documents/note.entity.ts';
import type { Payable } from '../../db/payments/payable.entity.ts';
import type { ReceptionEventType } from '../../db/reception-events/reception-event.entity.ts';
import { ADMITTED_TAG } from '../../db/tags/tag.entity.ts';
import type { BeneficiaryBody, DocumentDetail, DocumentListItem, Expansion, LineItemBody, NoteBody, PayableBody } from '../schemas/documents.ts';
import { fileUrl } from './files.ts';
import { presentPayable } from './payment.ts';
import { centsToAmount, decimalToNumber, isoDateTime } from './money.ts';

/** Which relations each expansion needs; tags are always needed for `tags` and `is_admited`. */
export const EXPANSION_RELATIONS: Record<Expansion, Relation[]> = {
  beneficiaries: ['beneficiaries'],
  payments: ['payments'],
  payables: ['payables'],
  document_support: [],
  invoice_reception_events: ['receptionEvents'],
  payment_receipt_complements: ['complements'],
  expenses: [],
  logs: ['logs'],
  erp_document: ['erpDocuments'],
  notes: ['notes'],
};

const RECEPTION_EVENT_NAMES: Record<ReceptionEventType, string> = {
  '030': 'acuse',
  '031': 'reclamo',
  '032': 'recibo',
  '033': 'aceptacion_expresa',
  '034': 'aceptacion_tacita',
};

type Base = Omit<z.input<typeof DocumentListItem>, Expansion | 'beneficiary'>;

function base(document: Document, relations: DocumentRelations, publicUrl: string): Base {
  const tags = relations.tags.get(document.id) ?? [];
  const finalNotes = document.fiscalMetadata?.finalNotes;
  return {
    reference: document.id,
    document_number: document.documentNumber,
    type: document.type,
    amount: centsToAmount(document.amountCents),
    amount_currency: document.currency,
    approval_status: document.approvalStatus,
    payment_status: document.paymentStatus,
    is_archived: document.isArchived,
    created_at: document.createdAt.toISOString(),
    updated_at: document.updatedAt.toISOString(),
    issue_date: isoDateTime(document.issueDate),
    expiration_date: isoDateTime(document.expirationDate),
    fiscal_reference: document.fiscalReference ?? null,
    fiscal_metadata: document.fiscalMetadata ? { final_notes: Array.isArray(finalNotes) ? finalNotes : [] } : null,
    file_path: document.filePath ?? (document.sourceXmlPath ? fileUrl(publicUrl, document.sourceXmlPath) : null),
    purchase_order: document.purchaseOrder ?? null,
    tags,
    is_admited: tags.some((tag) => tag.toLowerCase() === ADMITTED_TAG),
    created_by: document.createdBy ? { source: document.createdBy.source, user: document.createdBy.user ?? null } : null,
  };
}

type Expanded = Pick<z.input<typeof DocumentDetail>, Exclude<Expansion, 'beneficiaries'> | 'beneficiary'>;

const expansions: { [K in Expansion]: (document: Document, relations: DocumentRelations, publicUrl: string) => Partial<Expanded> } = {
  beneficiaries: (document, relations) => {
    const beneficiary = document.beneficiary ? relations.beneficiaries.get(document.beneficiary.id) : undefined;
    return { beneficiary: beneficiary ? presentBeneficiary(beneficiary) : null };
  },
  payments: (document, relations) => ({
    payments: (relations.payments.get(document.id) ?? []).map((payment) => ({
      reference: payment.id,
      date: isoDateTime(payment.paidAt ?? payment.createdAt),
      amount: centsToAmount(payment.amountCents),
      amount_currency: payment.currency,
      payment_method: payment.paymentMethod ?? null,
      payable_reference: payment.payable.id,
      status: payment.status,
    })),
  }),
  payables: (document, relations) => ({ payables: (relations.payables.get(document.id) ?? []).map(presentDocumentPayable) }),
  document_support: (document) => ({
    document_support: document.documentSupport ? { issue_date: document.documentSupport.issueDate, document_number: document.documentSupport.documentNumber } : null,
  }),
  invoice_reception_events: (document, relations) => ({
    invoice_reception_events: (relations.receptionEvents.get(document.id) ?? []).map((event) => ({
      event: RECEPTION_EVENT_NAMES[event.eventType],
      event_type: event.eventType,
      issue_date: isoDateTime(event.issueDate),
      status: event.status,
      reason: event.message ?? null,
    })),
  }),
  payment_receipt_complements: (document, relations) => ({
    payment_receipt_complements: (relations.complements.get(document.id) ?? []).map((complement) => ({
      fiscal_reference: complement.complementFiscalUuid,
      payment_date: complement.paymentDate.toISOString(),
      amount: centsToAmount(complement.amountCents),
      amount_currency: complement.currency,
      installment_number: complement.installmentNumber,
      previous_balance: centsToAmount(complement.previousBalanceCents),
      paid_amount: centsToAmount(complement.paidCents),
      outstanding_balance: centsToAmount(complement.outstandingBalanceCents),
    })),
  }),
  expenses: (document) => ({ expenses: document.expenses ?? null }),
  logs: (document, relations) => ({
    logs: (relations.logs.get(document.id) ?? []).map((log) => ({ event: log.event, created_at: log.createdAt.toISOString(), actor: log.actor, metadata: log.metadata ?? {} })),
  }),
  erp_document: (document, relations) => {
    const erp = relations.erpDocuments.get(document.id);
    return { erp_document: erp ? { registered: erp.registered, data: (erp.data as Record<string, unknown> | null) ?? null } : null };
  },
  notes: (document, relations, publicUrl) => ({ notes: (relations.notes.get(document.id) ?? []).map((note) => presentNote(note, publicUrl)) }),
};

/** A document of the list: its base fields plus the asked-for expansions. */
export function presentDocumentListItem(document: Document, relations: DocumentRelations, fields: readonly Expansion[], publicUrl: string): z.input<typeof DocumentListItem> {
  return Object.assign(base(document, relations, publicUrl), ...fields.map((field) => expansions[field](document, relations, publicUrl)));
}

/** The full document: every expansion, its line items, notes and payables. */
export function presentDocument(document: Document, relations: DocumentRelations, publicUrl: string): z.input<typeof DocumentDetail> {
  const all = Object.keys(expansions) as Expansion[];
  return {
    ...(presentDocumentListItem(document, relations, all, publicUrl) as z.input<typeof DocumentDetail>),
    line_items: (relations.lineItems.get(document.id) ?? []).map(presentLineItem),
  };
}

export function presentBeneficiary(beneficiary: Beneficiary): z.input<typeof BeneficiaryBody> {
  return {
    reference: beneficiary.id,
    name: beneficiary.name,
    type: beneficiary.type,
    email: beneficiary.email ?? null,
    phone_number: beneficiary.phoneNumber ?? null,
    identifier_type: beneficiary.identifierType,
    identifier_number: beneficiary.identifierNumber,
    payment_terms: beneficiary.paymentTerms ?? null,
    fiscal_address: beneficiary.fiscalAddress ?? null,
    contact_information: beneficiary.contacts.isInitialized() ? beneficiary.contacts.getItems().map((contact) => ({ type: contact.type, value: contact.value })) : [],
    bank_accounts: beneficiary.bankAccounts.isInitialized()
      ? beneficiary.bankAccounts.getItems().map((account) => ({ reference: account.id, bank_reference: account.bank.id, bank_name: account.bank.name, account_number: account.accountNumber }))
      : [],
    created_at: beneficiary.createdAt.toISOString(),
    updated_at: beneficiary.updatedAt.toISOString(),
  };
}

export function presentDocumentPayable(payable: Payable): z.input<typeof PayableBody> {
  return { ...presentPayable(payable), installment_number: payable.installmentNumber, cost_center: payable.costCenter ?? null };
}

export function presentNote(note: DocumentNote, publicUrl: string): z.input<typeof NoteBody> {
  return {
    reference: note.id,
    comment: note.comment ?? null,
    file_path: note.storageKey ? fileUrl(publicUrl, note.storageKey) : (note.filePath ?? null),
    file_name: note.fileName ?? null,
    created_by: { name: note.createdBy.name },
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}

function presentLineItem(line: LineItem): z.input<typeof LineItemBody> {
  return {
    reference: line.id,
    name: line.name,
    description: line.description ?? null,
    code: line.code ?? null,
    quantity: Number(line.quantity),
    unit_code: line.unitCode ?? null,
    unit_price: centsToAmount(line.unitPriceCents),
    currency: line.currency,
    subtotal: centsToAmount(line.subtotalCents),
    total: centsToAmount(line.totalCents),
    position: line.position,
    metadata: line.metadata ?? {},
    adjustments: (line.adjustments ?? []).map((adjustment) => ({
      type: adjustment.type,
      code: adjustment.code,
      rate: decimalToNumber(adjustment.rate),
      rate_percentage: decimalToNumber(adjustment.ratePercentage),
      base_amount: centsToAmount(adjustment.baseAmountCents),
      amount: centsToAmount(adjustment.amountCents),
      is_inclusive: adjustment.isInclusive,
      metadata: adjustment.metadata ?? {},
    })),
    created_at: line.createdAt.toISOString(),
    updated_at: line.updatedAt.toISOString(),
  };
}
