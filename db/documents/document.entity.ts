import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import { COUNTRIES, Company } from '../companies/company.entity.ts';
import { PREPAID_CONVENTIONS, type FiscalResolution } from '../../fiscal/normalized-document.ts';
import { uuidKey } from '../ids.ts';
import { currencyProperty } from '../money.ts';
import { Payable } from '../payments/payable.entity.ts';
import { ReceptionEvent } from '../reception-events/reception-event.entity.ts';
import { DocumentTag } from '../tags/document-tag.entity.ts';
import { trigramIndex } from '../text-search.ts';
import { ActivityLog } from './activity-log.entity.ts';
import { LineItem } from './line-item.entity.ts';
import { DocumentNote } from './note.entity.ts';
import { PaymentReceiptComplement } from './payment-receipt-complement.entity.ts';

export const DOCUMENT_TYPES = ['invoice', 'debit_note', 'credit_note', 'expense'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** How a DIAN PayableAmount treated its PrepaidAmount (rule in fiscal/). */
export { PREPAID_CONVENTIONS };

export const APPROVAL_STATUSES = ['pending', 'in_review', 'approved', 'rejected'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const DOCUMENT_PAYMENT_STATUSES = ['pending', 'partial', 'paid'] as const;
export type DocumentPaymentStatus = (typeof DOCUMENT_PAYMENT_STATUSES)[number];

/** Complementary fiscal data read from the XML. */
export type FiscalMetadata = { finalNotes?: string[] } & Record<string, unknown>;
/** Where the document came from (e.g. `fiscal`) and who created it (null when automatic). */
export type DocumentCreatedBy = { source: string; user: string | null };
/** The seller of a documento soporte: someone not obliged to invoice, as the document names them. */
export interface SupportSeller {
  name: string;
  identifierType: string;
  identifierNumber: string;
  checkDigit: string | null;
  email: string | null;
  address: string | null;
}

/** The support document (documento soporte) of a purchase from someone not obliged to invoice. */
export interface DocumentSupport {
  /** YYYY-MM-DD */
  issueDate: string;
  documentNumber: string;
  /** The CUDS (also the document's fiscal reference). */
  cuds?: string | null;
  /** `recomputed` with the issuing software's PIN, or only its `format` checked. */
  cudsCheck?: 'recomputed' | 'format' | null;
  seller?: SupportSeller | null;
  /** The file named the acquirer as supplier and the seller as customer. */
  partiesReversed?: boolean;
  resolution?: FiscalResolution | null;
  environment?: 'production' | 'test' | null;
}

/** How an expense came in: from a documento soporte, or recorded by an operator or integrator. */
export const EXPENSE_ORIGINS = ['support_document', 'manual'] as const;
export type ExpenseOrigin = (typeof EXPENSE_ORIGINS)[number];

/** Whoever paid the cost out of pocket and is paid back. */
export interface ReimbursedPerson {
  name: string;
  identifierType: string;
  identifierNumber: string;
  email: string | null;
}

/** What an expense document adds to a document (the `expenses` expansion). */
export interface DocumentExpenses {
  origin: ExpenseOrigin;
  category: string | null;
  costCenter: string | null;
  description: string | null;
  /** YYYY-MM-DD: the day the cost was incurred. */
  spentOn: string | null;
  /** A receipt linked by URL (kept as given, never fetched)... */
  receiptUrl: string | null;
  /** ...or stored by the service (its storage key), served under the API's files URL. */
  receiptStorageKey: string | null;
  receiptFileName: string | null;
  reimbursedPerson: ReimbursedPerson | null;
}

/** A fiscal document received by the company: invoice, debit or credit note, or expense. */
export const Document = defineEntity({
  name: 'Document',
  tableName: 'documents',
  // PostgreSQL lets several rows share a NULL fiscal reference, as manual expenses do.
  uniques: [{ properties: ['company', 'fiscalReference'] }],
  indexes: [
    { properties: ['company', 'isArchived', 'createdAt'] },
    { properties: ['company', 'approvalStatus'] },
    { properties: ['company', 'paymentStatus'] },
    { properties: ['company', 'type'] },
    { properties: ['company', 'issueDate'] },
    { properties: ['company', 'expirationDate'] },
    { properties: ['company', 'documentNumber'] },
    { properties: ['company', 'beneficiary'] },
    { properties: ['company', 'isCanceled'] },
    // Text searches (documents and payments lists) match anywhere in the document number.
    trigramIndex('documents', 'document_number'),
  ],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    beneficiary: () => p.manyToOne(Beneficiary).nullable(),
    country: p.enum(COUNTRIES).nativeEnumName('country'),
    documentNumber: p.string(),
    type: p.enum(DOCUMENT_TYPES).nativeEnumName('document_type'),
    amountCents: p.bigint('bigint'),
    currency: currencyProperty(),
    subtotalCents: p.bigint('bigint').nullable(),
    taxTotalCents: p.bigint('bigint').nullable(),
    withholdingTotalCents: p.bigint('bigint').nullable(),
    /** DIAN PrepaidAmount: paid before the invoice, already left out of `amountCents`. */
    prepaidCents: p.bigint('bigint').nullable(),
    /** How the file's PayableAmount treated `prepaidCents`; null when there is none. */
    prepaidConvention: p.enum(PREPAID_CONVENTIONS).nativeEnumName('prepaid_convention').nullable(),
    /** The rate the fiscal document states from `currency` to the local currency; null when it needs or gives none. */
    exchangeRate: p.decimal().columnType('numeric').nullable(),
    exchangeRateSourceCurrency: currencyProperty().nullable(),
    exchangeRateTargetCurrency: currencyProperty().nullable(),
    exchangeRateDate: p.date().nullable(),
    approvalStatus: p.enum(APPROVAL_STATUSES).nativeEnumName('approval_status').default('pending'),
    paymentStatus: p.enum(DOCUMENT_PAYMENT_STATUSES).nativeEnumName('document_payment_status').default('pending'),
    isArchived: p.boolean().default(false),
    issueDate: p.datetime().nullable(),
    expirationDate: p.datetime().nullable(),
    /**
     * CUFE (96 hex characters) in Colombia, fiscal UUID in Mexico. Compared byte by byte: an identifier has no
     * language, and a batch of events finds its 200 documents by it in half the time the locale's rules take.
     */
    fiscalReference: p.string().nullable().collation('C'),
    fiscalMetadata: p.json<FiscalMetadata>().nullable(),
    /**
     * SHA-256 of what the imported file says (`fiscal/content-hash.ts`): a later file with the same fiscal reference
     * is the same document when it says the same. Null for documents not imported, and for those imported before it.
     */
    contentHash: p.string().length(64).nullable(),
    filePath: p.string().length(2048).nullable(),
    /** Storage key of the original fiscal XML. */
    sourceXmlPath: p.string().length(2048).nullable(),
    purchaseOrder: p.string().nullable(),
    /** Cancelled before the tax authority. */
    isCanceled: p.boolean().default(false),
    canceledAt: p.datetime().nullable(),
    createdBy: p.json<DocumentCreatedBy>().nullable(),
    documentSupport: p.json<DocumentSupport>().nullable(),
    expenses: p.json<DocumentExpenses>().nullable(),
    /** The optional ERP document reference given with POST /documents/{reference}/approve. */
    approvalErpReference: p.string().nullable(),
    approvedAt: p.datetime().nullable(),
    // Inverse sides, for the `fields` expansions; the children own the foreign keys.
    lineItems: () => p.oneToMany(LineItem).mappedBy('document'),
    notes: () => p.oneToMany(DocumentNote).mappedBy('document'),
    logs: () => p.oneToMany(ActivityLog).mappedBy('document'),
    documentTags: () => p.oneToMany(DocumentTag).mappedBy('document'),
    payables: () => p.oneToMany(Payable).mappedBy('document'),
    receptionEvents: () => p.oneToMany(ReceptionEvent).mappedBy('document'),
    paymentReceiptComplements: () => p.oneToMany(PaymentReceiptComplement).mappedBy('document'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Document = InferEntity<typeof Document>;
