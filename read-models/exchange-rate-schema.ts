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
