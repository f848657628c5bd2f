import { z } from 'zod';
import { Currency, Reference } from '../../platform/schema-atoms.ts';

export const AdvanceParams = z.object({
  reference: Reference.describe("The advance payment's reference: `reference` of its advance_crossings entry"),
});

export const AdvanceBalanceRequest = z
  .strictObject({
    outstanding_amount_cents: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .describe("What is left of the advance to cross, in integer cents: from 0 to the advance's original amount"),
  })
  .meta({ id: 'AdvanceBalanceRequest' });

export const AdvanceBalance = z
  .strictObject({
    reference: Reference,
    currency: Currency,
    original_amount_cents: z.number().int().describe('The advance paid'),
    outstanding_amount_cents: z.number().int().describe('What is left to cross against documents'),
    updated_at: z.iso.datetime({ offset: true }).nullable().describe('When the ERP last reported it; null: never'),
  })
  .meta({ id: 'AdvanceBalance', description: "An advance payment's balance, as the ERP reports it" });
