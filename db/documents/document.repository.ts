import type { FilterQuery } from '@mikro-orm/core';
import { ErpDocument } from '../accounting/erp-document.entity.ts';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import type { Country } from '../companies/company.entity.ts';
import { UUID_PATTERN } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { Payable } from '../payments/payable.entity.ts';
import { Payment } from '../payments/payment.entity.ts';
import { ReceptionEvent } from '../reception-events/reception-event.entity.ts';
import { DocumentTag } from '../tags/document-tag.entity.ts';
import { ADMITTED_TAG } from '../tags/tag.entity.ts';
import { ActivityLog } from './activity-log.entity.ts';
import { Document, type ApprovalStatus, type DocumentPaymentStatus, type DocumentType } from './document.entity.ts';
import { LineItem } from './line-item.entity.ts';
import { DocumentNote } from './note.entity.ts';
import { PaymentReceiptComplement } from './payment-receipt-complement.entity.ts';

export interface DocumentFilters {
  isAdmitted?: boolean;
  isCanceled?: boolean;
  isArchived?: boolean;
  /** Tag ids or names; a document matches when it has any of them. */
  tags?: string[];
  search?: string;
  types?: DocumentType[];
  approvalStatuses?: ApprovalStatus[];
  paymentStatuses?: DocumentPaymentStatus[];
  beneficiaryId?: string;
  fiscalReference?: string;
  /** Inclusive YYYY-MM-DD days, in the company's time zone. */
  issueDate?: DayRange;
  expirationDate?: DayRange;
  createdAt?: DayRange;
}

export interface DayRange {
  from?: string;
  to?: string;
}

export type DocumentSort = { field: 'created_at' | 'issue_date' | 'expiration_date' | 'amount' | 'document_number'; order: 'asc' | 'desc' };

const SORT_COLUMNS = { created_at: 'createdAt', issue_date: 'issueDate', expiration_date: 'expirationDate', amount: 'amountCents', document_number: 'documentNumber' } as const;

/** Fixed UTC offsets of the countries served (neither observes daylight saving time). */
const UTC_OFFSET: Record<Country, string> = { COL: '-05:00', MEX: '-06:00' };

const CUFE = /^[a-f0-9]{96}$/i;

/** A document by internal reference, CUFE (96 hex) or SAT fiscal UUID; null when the company has none such. */
export async function findDocumentByAnyReference(em: EntityManager, reference: string): Promise<Document | null> {
  if (CUFE.test(reference)) return em.findOne(Document, { fiscalReference: reference.toLowerCase() });
  if (!UUID_PATTERN.test(reference)) return null;
  const lower = reference.toLowerCase();
  return (await em.findOne(Document, { id: lower })) ?? em.findOne(Document, { fiscalReference: lower });
}

/** One page of the company's documents with the total count: two queries, whatever the filters. */
export async function findDocumentPage(em: EntityManager, country: Country, filters: DocumentFilters, sort: DocumentSort, page: { number: number; size: number }) {
  const where = await documentWhere(em, country, filters);
  const column = SORT_COLUMNS[sort.field];
  const [documents, total] = await em.findAndCount(Document, where, {
    orderBy: [{ [column]: sort.order }, { id: sort.order }],
    limit: page.size,
    offset: (page.number - 1) * page.size,
  });
  return { documents, total };
}

async function documentWhere(em: EntityManager, country: Country, filters: DocumentFilters): Promise<FilterQuery<Document>> {
  const and: FilterQuery<Document>[] = [];
  if (filters.isCanceled !== undefined) and.push({ isCanceled: filters.isCanceled });
  if (filters.isArchived !== undefined) and.push({ isArchived: filters.isArchived });
  if (filters.types?.length) and.push({ type: { $in: filters.types } });
  if (filters.approvalStatuses?.length) and.push({ approvalStatus: { $in: filters.approvalStatuses } });
  if (filters.paymentStatuses?.length) and.push({ paymentStatus: { $in: filters.paymentStatuses } });
  if (filters.beneficiaryId) and.push({ beneficiary: filters.beneficiaryId });
  if (filters.fiscalReference) and.push({ fiscalReference: filters.fiscalReference.toLowerCase() });
  if (filters.isAdmitted !== undefined) {
    const admitted = { documentTags: { tag: { normalizedName: ADMITTED_TAG } } };
    and.push(filters.isAdmitted ? { documentTags: { $some: admitted.documentTags } } : { documentTags: { $none: admitted.documentTags } });
  }
  if (filters.tags?.length) {
    const ids = filters.tags.filter((tag) => UUID_PATTERN.test(tag)).map((id) => id.toLowerCase());
    const names = filters.tags.map((tag) => tag.toLowerCase());
    and.push({ documentTags: { $some: { tag: { $or: [{ id: { $in: ids } }, { normalizedName: { $in: names } }] } } } });
  }
  if (filters.search) {
    const pattern = `%${filters.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    and.push({
      $or: [
        { documentNumber: { $ilike: pattern } },
        { fiscalReference: { $ilike: pattern } },
        { beneficiary: { name: { $ilike: pattern } } },
        { beneficiary: { identifierNumber: { $ilike: pattern } } },
      ],
    });
  }
  for (const [column, range] of [['issueDate', filters.issueDate], ['expirationDate', filters.expirationDate], ['createdAt', filters.createdAt]] as const) {
    if (range?.from) and.push({ [column]: { $gte: new Date(`${range.from}T00:00:00${UTC_OFFSET[country]}`) } });
    if (range?.to) and.push({ [column]: { $lt: nextDay(range.to, country) } });
  }
  void em;
  return and.length ? { $and: and } : {};
}

function nextDay(day: string, country: Country): Date {
  const start = new Date(`${day}T00:00:00${UTC_OFFSET[country]}`);
  return new Date(start.getTime() + 24 * 60 * 60 * 1000);
}

export type Relation = 'tags' | 'beneficiaries' | 'payables' | 'payments' | 'logs' | 'notes' | 'receptionEvents' | 'complements' | 'erpDocuments' | 'lineItems';

/** What a page of documents carries besides its own columns, loaded with one query per kind (never per document). */
export interface DocumentRelations {
  tags: Map<string, string[]>;
  beneficiaries: Map<string, Beneficiary>;
  payables: Map<string, Payable[]>;
  payments: Map<string, Payment[]>;
  logs: Map<string, ActivityLog[]>;
  notes: Map<string, DocumentNote[]>;
  receptionEvents: Map<string, ReceptionEvent[]>;
  complements: Map<string, PaymentReceiptComplement[]>;
  erpDocuments: Map<string, ErpDocument>;
  lineItems: Map<string, LineItem[]>;
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const row of rows) {
    const id = key(row);
    const list = grouped.get(id);
    if (list) list.push(row);
    else grouped.set(id, [row]);
  }
  return grouped;
}

/** Relations of documents that have none yet (a document being created). */
export function emptyRelations(): DocumentRelations {
  return { tags: new Map(), beneficiaries: new Map(), payables: new Map(), payments: new Map(), logs: new Map(), notes: new Map(), receptionEvents: new Map(), complements: new Map(), erpDocuments: new Map(), lineItems: new Map() };
}

export async function loadRelations(em: EntityManager, documents: Document[], wanted: ReadonlySet<Relation>): Promise<DocumentRelations> {
  const ids = documents.map((document) => document.id);
  const empty = new Map();
  const none = ids.length === 0;
  const want = (relation: Relation) => !none && wanted.has(relation);
  const beneficiaryIds = [...new Set(documents.map((document) => document.beneficiary?.id).filter((id): id is string => Boolean(id)))];

  const [documentTags, beneficiaries, payables, payments, logs, notes, receptionEvents, complements, erpDocuments, lineItems] = await Promise.all([
    want('tags') ? em.find(DocumentTag, { document: { $in: ids } }, { populate: ['tag'], orderBy: { createdAt: 'asc' } }) : [],
    want('beneficiaries') && beneficiaryIds.length ? em.find(Beneficiary, { id: { $in: beneficiaryIds } }, { populate: ['contacts', 'bankAccounts', 'bankAccounts.bank'] }) : [],
    want('payables') ? em.find(Payable, { document: { $in: ids } }, { orderBy: { installmentNumber: 'asc', createdAt: 'asc' } }) : [],
    want('payments') ? em.find(Payment, { payable: { document: { $in: ids } } }, { populate: ['payable'], orderBy: { createdAt: 'asc' } }) : [],
    want('logs') ? em.find(ActivityLog, { document: { $in: ids } }, { orderBy: { createdAt: 'asc', id: 'asc' } }) : [],
    want('notes') ? em.find(DocumentNote, { document: { $in: ids } }, { orderBy: { createdAt: 'asc', id: 'asc' } }) : [],
    want('receptionEvents') ? em.find(ReceptionEvent, { document: { $in: ids } }, { orderBy: { eventType: 'asc' } }) : [],
    want('complements') ? em.find(PaymentReceiptComplement, { document: { $in: ids } }, { orderBy: { paymentDate: 'asc' } }) : [],
    want('erpDocuments') ? em.find(ErpDocument, { document: { $in: ids } }) : [],
    want('lineItems') ? em.find(LineItem, { document: { $in: ids } }, { orderBy: { position: 'asc' } }) : [],
  ]);

  const tags = new Map<string, string[]>();
  for (const link of documentTags) tags.set(link.document.id, [...(tags.get(link.document.id) ?? []), link.tag.name]);
  return {
    tags,
    beneficiaries: beneficiaries.length ? new Map(beneficiaries.map((beneficiary) => [beneficiary.id, beneficiary])) : empty,
    payables: groupBy(payables, (payable) => payable.document!.id),
    payments: groupBy(payments, (payment) => payment.payable.document!.id),
    logs: groupBy(logs, (log) => log.document.id),
    notes: groupBy(notes, (note) => note.document.id),
    receptionEvents: groupBy(receptionEvents, (event) => event.document.id),
    complements: groupBy(complements, (complement) => complement.document.id),
    erpDocuments: new Map(erpDocuments.map((erp) => [erp.document.id, erp])),
    lineItems: groupBy(lineItems, (line) => line.document.id),
  };
}
