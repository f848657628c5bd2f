import { z } from 'zod';
import { Reference } from '../../platform/schema-atoms.ts';

export const BankBody = z
  .strictObject({
    reference: Reference,
    name: z.string(),
    bank_code: z.string().describe('Colombia: ACH code; Mexico: the three-digit institution code of the CLABE'),
    logo: z.url().describe('URL of the bank logo (SVG)'),
  })
  .meta({ id: 'Bank' });

export const BankParams = z.object({ reference: Reference });
