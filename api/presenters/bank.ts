import type { z } from 'zod';
import type { Bank } from '../../db/banks/bank.entity.ts';
import type { BankBody } from '../schemas/banks.ts';

export function presentBank(bank: Bank, publicUrl: string): z.input<typeof BankBody> {
  return {
    reference: bank.id,
    name: bank.name,
    bank_code: bank.code,
    logo: `${publicUrl}/public/assets/banks/${bank.country}-${bank.code}.svg`,
  };
}
