import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { currencyProperty } from '../money.ts';
import { Document } from './document.entity.ts';

/** A tax, withholding, discount or charge applied to a line item. Cents are integer numbers. */
export type LineItemAdjustment = {
  type: string;
  code: string | null;
  /** Decimal fraction as a string, e.g. "0.19". */
  rate: string | null;
  /** Decimal percentage as a string, e.g. "19". */
  ratePercentage: string | null;
  baseAmountCents: number;
  amountCents: number;
  isInclusive: boolean;
  metadata: Record<string, unknown>;
};

/** One line of a fiscal document, with its taxes and other adjustments. */
export const LineItem = defineEntity({
  name: 'LineItem',
  tableName: 'line_items',
  uniques: [{ properties: ['document', 'position'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document),
    position: p.integer(),
    name: p.text(),
    description: p.text().nullable(),
    code: p.string().nullable(),
    /** Exact decimal, read as a string. */
    quantity: p.decimal().precision(24).scale(6),
    unitCode: p.string().nullable(),
    unitPriceCents: p.bigint('bigint'),
    currency: currencyProperty(),
    subtotalCents: p.bigint('bigint'),
    totalCents: p.bigint('bigint'),
    metadata: p.json<Record<string, unknown>>().onCreate(() => ({})),
    adjustments: p.json<LineItemAdjustment[]>().onCreate(() => []),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type LineItem = InferEntity<typeof LineItem>;
