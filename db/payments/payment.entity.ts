import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { currencyProperty } from '../money.ts';
import { PaymentTag } from '../tags/payment-tag.entity.ts';
import { Payable } from './payable.entity.ts';
import { PaymentBatch } from './payment-batch.entity.ts';

export const PAYMENT_STATUSES = ['pending', 'in_process', 'processed', 'failed'] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** Values seen: `cash`, `card`, `banking_correspondent`. */
export type PaymentMethod = 'cash' | 'card' | 'banking_correspondent' | (string & {});

/** The spec does not show the fields of these objects; kept as received. */
export type PaymentDetails = Record<string, unknown>;

/** A payment of (part of) a payable to its beneficiary. */
export const Payment = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  indexes: [
    // The default list: active (not archived), payroll excluded, newest first.
    { properties: ['company', 'isArchived', 'isPayroll', 'createdAt'] },
    { properties: ['company', 'status'] },
    { properties: ['company', 'beneficiary'] },
    { properties: ['company', 'payable'] },
    { properties: ['company', 'batch'] },
    { properties: ['company', 'paymentMethod'] },
    { properties: ['company', 'paidAt'] },
    { properties: ['company', 'amountCents'] },
    { properties: ['company', 'isExpense', 'createdAt'] },
    { properties: ['company', 'gatewayReference'] },
  ],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    payable: () => p.manyToOne(Payable),
    /** The payable's beneficiary, kept here too for the beneficiary filter and sort. */
    beneficiary: () => p.manyToOne(Beneficiary),
    batch: () => p.manyToOne(PaymentBatch).nullable(),
    amountCents: p.bigint('bigint'),
    currency: currencyProperty(),
    exchangeAmountCents: p.bigint('bigint').nullable(),
    exchangeCurrency: currencyProperty().nullable(),
    /** Exact decimal, read as a string. */
    exchangeRate: p.decimal().precision(20).scale(8).nullable(),
    status: p.enum(PAYMENT_STATUSES).nativeEnumName('payment_status').default('pending'),
    /**
     * The day it is handed to the gateway (YYYY-MM-DD, in the company's country): the payable's due date unless the
     * request or the operator set another; today or earlier means at once.
     */
    payDate: p.date(),
    failureReason: p.text().nullable(),
    filePath: p.string().length(2048).nullable(),
    receiptFilePath: p.string().length(2048).nullable(),
    isArchived: p.boolean().default(false),
    paymentMethod: p.string().$type<PaymentMethod>().nullable(),
    paidAt: p.datetime().nullable(),
    isExpense: p.boolean().default(false),
    /** Copied from payable.type = payroll, so that the default list excludes payroll without a join. */
    isPayroll: p.boolean().default(false),
    sourceOfFund: p.json<PaymentDetails>().nullable(),
    accountingReceipt: p.json<PaymentDetails>().nullable(),
    paymentGateway: p.json<PaymentDetails>().nullable(),
    /** The gateway's id of the transfer, to match its callbacks. */
    gatewayReference: p.string().nullable(),
    erpPaymentReference: p.string().nullable(),
    erpPayment: p.json<PaymentDetails>().nullable(),
    erpPayableReference: p.string().nullable(),
    erpPayable: p.json<PaymentDetails>().nullable(),
    /** For an advance: what the ERP says is left of it to cross against documents (cents), and when it said so. */
    advanceOutstandingCents: p.bigint('bigint').nullable(),
    advanceBalanceUpdatedAt: p.datetime().nullable(),
    paymentTags: () => p.oneToMany(PaymentTag).mappedBy('payment'),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Payment = InferEntity<typeof Payment>;
