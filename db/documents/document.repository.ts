import type { FilterQuery } from '@mikro-orm/core';
import type { Country } from '../companies/company.entity.ts';
import { UUID_PATTERN } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { ADMITTED_TAG } from '../tags/tag.entity.ts';
import { Document, type ApprovalStatus, type DocumentPaymentStatus, type DocumentType } from './document.entity.ts';

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

export type DocumentSort = {
  field: 'created_at' | 'issue_date' | 'expiration_date' | 'amount' | 'document_number';
  order: 'asc' | 'desc';
};

const SORT_COLUMNS = {
  created_at: 'createdAt',
  issue_date: 'issueDate',
  expiration_date: 'expirationDate',
  amount: 'amountCents',
  document_number: 'documentNumber',
} as const;

/** Fixed UTC offsets of the countries served (neither observes daylight saving time). */
const UTC_OFFSET: Record<Country, string> = { COL: '-05:00', MEX: '-06:00' };

/** The ids of one page of the company's documents, in order, with the total count: two queries, whatever the filters. */
export async function findDocumentPage(
  em: EntityManager,
  country: Country,
  filters: DocumentFilters,
  sort: DocumentSort,
  page: { number: number; size: number },
) {
  const where = await documentWhere(em, country, filters);
  const column = SORT_COLUMNS[sort.field];
  const [documents, total] = await em.findAndCount(Document, where, {
    fields: ['id'],
    orderBy: [{ [column]: sort.order }, { id: sort.order }],
    limit: page.size,
    offset: (page.number - 1) * page.size,
  });
  return { ids: documents.map((document) => document.id), total };
}

async function documentWhere(
  em: EntityManager,
  country: Country,
  filters: DocumentFilters,
): Promise<FilterQuery<Document>> {
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
    and.push(
      filters.isAdmitted
        ? { documentTags: { $some: admitted.documentTags } }
        : { documentTags: { $none: admitted.documentTags } },
    );
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
  for (const [column, range] of [
    ['issueDate', filters.issueDate],
    ['expirationDate', filters.expirationDate],
    ['createdAt', filters.createdAt],
  ] as const) {
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
