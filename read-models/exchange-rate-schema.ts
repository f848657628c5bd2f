import { z } from 'zod';
import { Currency } from '../platform/schema-atoms.ts';

// Apart from the document schema, which imports the erp_document schema: both show a document's rate.

export const DocumentExchangeRate = z
  .strictObject({
    rate: z.number().positive().describe('Units of target_currency one unit of source_currency is worth'),
    source_currency: Currency.describe("The document's currency (amount_currency)"),
    target_currency: Currency.describe("The company's local currency: COP in Colombia, MXN in Mexico"),
    date: z.iso
      .date()
      .nullable()
      .describe('The day of the rate: DIAN `cbc:Date` (null when the file gives none), the issue day for a CFDI'),
  })
  .meta({ id: 'DocumentExchangeRate' });

export const StatedExchangeRate = z
  .strictObject({
    rate: z.number().positive().describe('Units of target_currency one unit of source_currency is worth'),
    source_currency: z.string().describe('As the file gives it (ISO 4217)'),
    target_currency: z.string().describe('As the file gives it (ISO 4217)'),
    date: z.iso.date().nullable().describe('DIAN `cbc:Date`; null when the file gives none'),
  })
  .meta({
    id: 'StatedExchangeRate',
    description: [
      'A rate a document in the local currency states besides its amounts (a DIAN COP invoice priced in dollars states `cac:PaymentExchangeRate` COP → USD):',
      'kept as information, never used to convert, since the amounts are already local',
    ].join(' '),
  });
