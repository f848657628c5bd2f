import { raw, type EntityName, type FilterQuery, type QueryOrderMap } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { UUID_PATTERN } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { PaymentTag } from '../tags/payment-tag.entity.ts';
import { Tag } from '../tags/tag.entity.ts';
import { Payable } from './payable.entity.ts';
import { Payment, type PaymentStatus } from './payment.entity.ts';

export interface PaymentFilters {
  beneficiaryIds?: string[];
  documentIds?: string[];
  batchIds?: string[];
  payableId?: string;
  /** `active` (not archived) or `archived`; the status filter only applies to active payments. */
  state: 'active' | 'archived';
  statuses?: PaymentStatus[];
  /** Inclusive YYYY-MM-DD bounds on the payable's due date. */
  expirationDate?: { from?: string; to?: string };
  /** Tag ids or names; a payment matches when it has any of them. */
  tags?: string[];
  paymentMethods?: string[];
  onlyExpenses?: boolean;
  includePayroll: boolean;
  search?: string;
}

export const PAYMENT_SORT_FIELDS = ['created_at', 'amount', 'expiration_date', 'paid_at', 'beneficiary'] as const;
export type PaymentSort = { field: (typeof PAYMENT_SORT_FIELDS)[number]; order: 'asc' | 'desc' };

/**
 * The ids of one page of the company's payments, in order, with the total count: two queries, whatever the filters,
 * each with only the joins the filters and sort need (the tenant filter would otherwise join every relation to check
 * its company, on every row counted). The caller renders the page from its ids.
 */
export async function findPaymentPage(
  em: EntityManager,
  filters: PaymentFilters,
  sort: PaymentSort,
  page: { number: number; size: number },
): Promise<{ ids: string[]; total: number }> {
  const [found, total] = await em.findAndCount(Payment, await paymentWhere(em, filters), {
    fields: ['id'],
    orderBy: [orderOf(sort), { id: sort.order }],
    limit: page.size,
    offset: (page.number - 1) * page.size,
  });
  return { ids: found.map((payment) => payment.id), total };
}

function orderOf(sort: PaymentSort): QueryOrderMap<Payment> {
  // Unpaid payments and payables without a due date go last in both directions.
  const last = `${sort.order} nulls last` as const;
  switch (sort.field) {
    case 'amount':
      return { amountCents: sort.order };
    case 'expiration_date':
      return { payable: { expirationDate: last } };
    case 'paid_at':
      return { paidAt: last };
    case 'beneficiary':
      return { beneficiary: { name: sort.order } };
    default:
      return { createdAt: sort.order };
  }
}

const lower = (ids: string[]) => ids.map((id) => id.toLowerCase());

/** A subquery of the ids of `entity` matching `where`, scoped to the company like every query of `em`. */
async function idsOf<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  column: string,
  where: FilterQuery<T>,
) {
  const query = em
    .createQueryBuilder(entity)
    .select(column as never)
    .where(where as never);
  await query.applyFilters();
  return query;
}

/**
 * `column = any(array(subquery))`: PostgreSQL plans each such subquery on its own, once (an InitPlan), with the index
 * that serves it (a trigram index for text), and can then find the payments it names through theirs. As `in (subquery)`
 * inside an OR, it would plan them as hashed subplans, scanning whole tables.
 */
function anyOf(
  column: 'beneficiary_id' | 'payable_id',
  subquery: { getQuery(): string; getParams(): readonly unknown[] },
): FilterQuery<Payment> {
  return {
    [raw((alias) => `${alias}.${column}`)]: raw(`any(array(${subquery.getQuery()}))`, subquery.getParams()),
  } as FilterQuery<Payment>;
}

/**
 * The filters as one condition on payments. Tags and text search go through subqueries on the smaller tables
 * (payment tags, beneficiaries, payables, documents), each served by an index or a scan of the company's rows,
 * instead of joins that would have to visit every payment.
 */
async function paymentWhere(em: EntityManager, filters: PaymentFilters): Promise<FilterQuery<Payment>> {
  const and: FilterQuery<Payment>[] = [{ isArchived: filters.state === 'archived' }];
  if (!filters.includePayroll) and.push({ isPayroll: false });
  if (filters.state === 'active' && filters.statuses?.length) and.push({ status: { $in: filters.statuses } });
  if (filters.beneficiaryIds?.length) and.push({ beneficiary: { $in: lower(filters.beneficiaryIds) } });
  if (filters.batchIds?.length) and.push({ batch: { $in: lower(filters.batchIds) } });
  if (filters.payableId) and.push({ payable: filters.payableId.toLowerCase() });
  if (filters.documentIds?.length) and.push({ payable: { document: { $in: lower(filters.documentIds) } } });
  if (filters.expirationDate?.from) and.push({ payable: { expirationDate: { $gte: filters.expirationDate.from } } });
  if (filters.expirationDate?.to) and.push({ payable: { expirationDate: { $lte: filters.expirationDate.to } } });
  if (filters.paymentMethods?.length) and.push({ paymentMethod: { $in: filters.paymentMethods } });
  if (filters.onlyExpenses) and.push({ isExpense: true });
  if (filters.tags?.length) {
    const ids = lower(filters.tags.filter((tag) => UUID_PATTERN.test(tag)));
    const names = filters.tags.map((tag) => tag.trim().toLowerCase());
    const tags = await em.find(
      Tag,
      { $or: [{ id: { $in: ids } }, { normalizedName: { $in: names } }] },
      { fields: ['id'] },
    );
    and.push({ id: { $in: await idsOf(em, PaymentTag, 'payment', { tag: { $in: tags.map((tag) => tag.id) } }) } });
  }
  if (filters.search) {
    const pattern = `%${filters.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    const documents = await idsOf(em, Document, 'id', { documentNumber: { $ilike: pattern } });
    const [beneficiaries, byConcept, byDocument] = await Promise.all([
      idsOf(em, Beneficiary, 'id', { $or: [{ name: { $ilike: pattern } }, { identifierNumber: { $ilike: pattern } }] }),
      idsOf(em, Payable, 'id', { concept: { $ilike: pattern } }),
      idsOf(em, Payable, 'id', { document: { $in: documents } }),
    ]);
    and.push({
      $or: [anyOf('beneficiary_id', beneficiaries), anyOf('payable_id', byConcept), anyOf('payable_id', byDocument)],
    });
  }
  return { $and: and };
}
