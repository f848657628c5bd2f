import { Company } from '../../db/companies/company.entity.ts';
import { systemEm } from '../../db/orm.ts';
import { listRefusals } from '../../services/fiscal-sync/intake-refusals.ts';
import { optional, reference } from '../arguments.ts';
import type { Command } from '../command.ts';
import { notFound, usage } from '../errors.ts';

const MAX_LIMIT = 1_000;

/** The files fiscal intake passed over for a company, newest first, with why. */
export const fiscalIntakeCommand: Command = {
  group: 'fiscal',
  action: 'intake',
  usage: 'fiscal intake --company REF [--limit N]',
  options: { company: { type: 'string' }, limit: { type: 'string' } },
  async run(input, context) {
    const companyId = reference(input, 'company');
    const limitFlag = optional(input, 'limit') ?? '100';
    const limit = Number(limitFlag);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      throw usage(`--limit must be a whole number from 1 to ${MAX_LIMIT}`);
    const orm = await context.orm();
    if (!(await systemEm(orm).findOne(Company, { id: companyId }))) throw notFound('company', companyId);
    const refusals = await listRefusals(orm, companyId, limit);
    return {
      company: companyId,
      refused: refusals.map((refusal) => ({
        file: refusal.name,
        reason: refusal.reason,
        detail: refusal.detail,
        recorded_at: refusal.recordedAt.toISOString(),
      })),
    };
  },
};
