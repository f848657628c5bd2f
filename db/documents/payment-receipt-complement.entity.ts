import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { currencyProperty } from '../money.ts';
import { Document } from './document.entity.ts';

/**
 * One payment of a Mexican payment complement (CFDI with Pagos 2.0) applied to a document it pays.
 * A complement can pay several documents, and a document can be paid in several installments.
 */
export const PaymentReceiptComplement = defineEntity({
  name: 'PaymentReceiptComplement',
  tableName: 'payment_receipt_complements',
  uniques: [{ properties: ['document', 'complementFiscalUuid', 'installmentNumber'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    /** The paid document (DoctoRelacionado). */
    document: () => p.manyToOne(Document),
    /** Fiscal UUID of the complement CFDI itself. */
    complementFiscalUuid: p.string(),
    paymentDate: p.datetime(),
    amountCents: p.bigint('bigint'),
    currency: currencyProperty(),
    installmentNumber: p.integer(),
    previousBalanceCents: p.bigint('bigint'),
    paidCents: p.bigint('bigint'),
    outstandingBalanceCents: p.bigint('bigint'),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type PaymentReceiptComplement = InferEntity<typeof PaymentReceiptComplement>;
