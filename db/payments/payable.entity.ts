import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import { Company } from '../companies/company.entity.ts';
import { Document } from '../documents/document.entity.ts';
import { uuidKey } from '../ids.ts';
import { currencyProperty } from '../money.ts';
import { trigramIndex } from '../text-search.ts';
import { Payment } from './payment.entity.ts';

export const PAYABLE_TYPES = ['supplier', 'payroll', 'advance'] as const;
export type PayableType = (typeof PAYABLE_TYPES)[number];

export const PAYABLE_STATUSES = ['pending', 'partial', 'paid', 'canceled'] as const;
export type PayableStatus = (typeof PAYABLE_STATUSES)[number];

/** Values seen: `document`, `fiscal_entity`, `manual`. */
export type PayableOrigin = 'document' | 'fiscal_entity' | 'manual' | (string & {});

/** The spec does not show the fields of projects and cost centers; kept as received. */
export type PayableProject = Record<string, unknown>;
export type PayableCostCenter = Record<string, unknown>;

/** An account payable (CxP): a debt to a beneficiary, usually one installment of a document. */
export const Payable = defineEntity({
  name: 'Payable',
  tableName: 'payables',
  indexes: [
    { properties: ['company', 'document'] },
    { properties: ['company', 'beneficiary'] },
    // The payments list filters and sorts by the payable's due date.
    { properties: ['company', 'expirationDate'] },
    { properties: ['company', 'status'] },
    // The payments list's text search matches anywhere in the concept.
    trigramIndex('payables', 'concept'),
  ],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    /** Null for manual payables and advances without a document. */
    document: () => p.manyToOne(Document).nullable(),
    beneficiary: () => p.manyToOne(Beneficiary),
    type: p.enum(PAYABLE_TYPES).nativeEnumName('payable_type').default('supplier'),
    status: p.enum(PAYABLE_STATUSES).nativeEnumName('payable_status').default('pending'),
    amountCents: p.bigint('bigint'),
    currency: currencyProperty(),
    /** What remains to pay; for advances, what remains to cross. */
    balanceCents: p.bigint('bigint'),
    /** What the ERP registered as settled by crossing the beneficiary's advances: paid, with no money moving now. */
    crossedCents: p.bigint('bigint').default(0),
    issueDate: p.date().nullable(),
    /** The due date, moved by `payments reschedule`. */
    expirationDate: p.date().nullable(),
    concept: p.text().nullable(),
    origin: p.string().$type<PayableOrigin>(),
    installmentNumber: p.integer().default(1),
    projects: p.json<PayableProject[]>().onCreate(() => []),
    costCenter: p.json<PayableCostCenter>().nullable(),
    filePath: p.string().length(2048).nullable(),
    payments: () => p.oneToMany(Payment).mappedBy('payable'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Payable = InferEntity<typeof Payable>;
