import { z } from 'zod';
import { Bank } from '../../db/banks/bank.entity.ts';
import { Refusal } from '../../platform/refusal.ts';
import { presentBank } from '../presenters/bank.ts';
import { refusals } from '../refusals.ts';
import { defineRoute } from '../route.ts';
import { BankBody, BankParams } from '../schemas/banks.ts';

/** Banks of the company's country: reference data for beneficiary bank accounts. */
export const bankRoutes = [
  defineRoute({
    method: 'get',
    path: '/banks',
    operationId: 'listBanks',
    summary: "List the banks of the company's country",
    description: [
      "The active banks of the company's country (Colombia or Mexico), sorted by name, each with its code and logo:",
      "the `bank_reference` a beneficiary's bank account names.",
      'Not paginated: a country has a few dozen.',
    ].join(' '),
    tags: ['Banks'],
    auth: 'api-key',
    scope: 'beneficiaries:read',
    response: z.array(BankBody),
    handler: async ({ em, caller, deps }) => {
      const banks = await em.find(Bank, { country: caller.company.country, active: true });
      return banks
        .sort((a, b) => a.name.localeCompare(b.name, 'es'))
        .map((bank) => presentBank(bank, deps.config.publicUrl));
    },
  }),
  defineRoute({
    method: 'get',
    path: '/banks/:reference',
    operationId: 'getBank',
    summary: 'Get one bank',
    description:
      "One bank of the company's country by its reference; a bank of another country answers `404 bank_not_found`, as an unknown one does.",
    tags: ['Banks'],
    auth: 'api-key',
    scope: 'beneficiaries:read',
    params: BankParams,
    response: BankBody,
    errors: refusals(['bank_not_found']),
    handler: async ({ em, caller, params, deps }) => {
      const bank = await em.findOne(Bank, { id: params.reference, country: caller.company.country });
      if (!bank) throw new Refusal('bank_not_found', 'Bank not found');
      return presentBank(bank, deps.config.publicUrl);
    },
  }),
];
