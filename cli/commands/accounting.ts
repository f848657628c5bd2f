import {
  AccountingSettingRefused,
  accountingSettingsOf,
  parsePriceTolerance,
  setAccountingSettings,
  type AccountingSettings,
} from '../../db/accounting/accounting-settings.ts';
import { Company } from '../../db/companies/company.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { oneOf, optional, reference } from '../arguments.ts';
import type { Command, CommandInput } from '../command.ts';
import { CliError, notFound } from '../errors.ts';

/** The options given, checked before anything is written. */
function changesOf(input: CommandInput): Partial<AccountingSettings> {
  const changes: Partial<AccountingSettings> = {};
  const automatic = optional(input, 'automatic');
  if (automatic !== undefined) changes.automatic = oneOf(automatic, ['on', 'off'] as const, 'automatic') === 'on';
  const tolerance = optional(input, 'price-tolerance');
  try {
    if (tolerance !== undefined) changes.priceTolerancePercent = parsePriceTolerance(tolerance);
  } catch (error) {
    if (error instanceof AccountingSettingRefused) throw new CliError(error.code, error.message, 2);
    throw error;
  }
  return changes;
}

/**
 * How the accounting agent works for each company. `--automatic off`: accounting no longer starts by itself when a
 * document is approved (or its flow's accounting step opens); `documents account` still accounts it.
 * `--price-tolerance`: the percentage by which an invoice line's unit price may differ from its purchase-order line's
 * and still be crossed (default 0: exact).
 */
export const accountingCommands: Command[] = [
  {
    group: 'accounting',
    action: 'settings',
    usage: [
      'accounting settings --company REF [--automatic on|off] [--price-tolerance PCT]',
      "      --automatic off: accounting does not start by itself when a document is approved (or its flow's accounting step opens); `documents account` still works",
      "      --price-tolerance: percent (0-100) by which an invoice line's unit price may differ from its purchase-order line's and still be crossed (default 0: exact)",
    ].join('\n'),
    options: {
      company: { type: 'string' },
      automatic: { type: 'string' },
      'price-tolerance': { type: 'string' },
    },
    async run(input, context) {
      const companyId = reference(input, 'company');
      const changes = changesOf(input);
      const orm = await context.orm();
      const company = await systemEm(orm).findOne(Company, { id: companyId });
      if (!company) throw notFound('company', companyId);
      const em = companyEm(orm, company.id);
      const settings =
        Object.keys(changes).length > 0
          ? await setAccountingSettings(em, company.id, changes)
          : await accountingSettingsOf(em, company.id);
      return {
        company: company.id,
        automatic: settings.automatic,
        price_tolerance_percent: settings.priceTolerancePercent,
      };
    },
  },
];
