import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { Company } from '../../db/companies/company.entity.ts';
import { Member } from '../../db/companies/member.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { FlowFile, toFlowDefinition } from '../../db/workflow-steps/flow-file.ts';
import { WorkflowFlow } from '../../db/workflow-steps/workflow-flow.entity.ts';
import { optional, reference, required } from '../arguments.ts';
import { stuckFlows } from '../../temporal/stuck-flows.ts';
import type { Command } from '../command.ts';
import { CliError, notFound } from '../errors.ts';

/** Approval flows: the steps a company's new documents go through. */
export const flowCommands: Command[] = [
  {
    group: 'flows',
    action: 'set',
    usage: 'flows set --company REF --file FLOW.json',
    options: { company: { type: 'string' }, file: { type: 'string' } },
    async run(input, context) {
      const companyId = reference(input, 'company');
      const path = required(input, 'file');
      const orm = await context.orm();
      const company = await systemEm(orm).findOne(Company, { id: companyId });
      if (!company) throw notFound('company', companyId);
      let json: unknown;
      try {
        json = JSON.parse(await readFile(path, 'utf8'));
      } catch (error) {
        throw new CliError('invalid_flow', `${path}: ${(error as Error).message}`);
      }
      const parsed = FlowFile.safeParse(json);
      if (!parsed.success) throw new CliError('invalid_flow', `${path}: ${z.prettifyError(parsed.error)}`);
      const definition = toFlowDefinition(parsed.data);
      const em = companyEm(orm, company.id);
      const emails = [...new Set(definition.steps.flatMap((step) => step.assignees ?? []))];
      const members = new Set((await em.find(Member, { email: { $in: emails } })).map((member) => member.email));
      const strangers = emails.filter((email) => !members.has(email));
      if (strangers.length)
        throw new CliError(
          'invalid_flow',
          `Not members of the company (add them with \`members add\`): ${strangers.join(', ')}`,
        );
      await em.upsert(
        WorkflowFlow,
        { company, definition },
        {
          onConflictFields: ['company'],
          onConflictAction: 'merge',
          onConflictMergeFields: ['definition', 'updatedAt'],
        },
      );
      return { company: company.id, steps: parsed.data.steps };
    },
  },
  {
    group: 'flows',
    action: 'show',
    usage: 'flows show --company REF',
    options: { company: { type: 'string' } },
    async run(input, context) {
      const companyId = reference(input, 'company');
      const flow = await companyEm(await context.orm(), companyId).findOne(WorkflowFlow, { company: companyId });
      return { company: companyId, steps: flow?.definition.steps ?? [] };
    },
  },
  {
    group: 'flows',
    action: 'stuck',
    usage: 'flows stuck [--older-than 1d] [--limit 100] [--company REF]',
    options: { 'older-than': { type: 'string' }, limit: { type: 'string' }, company: { type: 'string' } },
    async run(input, context) {
      const olderThan = optional(input, 'older-than') ?? '1d';
      const ms = durationMs(olderThan);
      if (ms === null)
        throw new CliError(
          'invalid_duration',
          `--older-than "${olderThan}" is not a duration: a whole number of minutes, hours or days (30m, 12h, 1d)`,
        );
      const limit = Number(optional(input, 'limit') ?? '100');
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new CliError('invalid_limit', '--limit must be a whole number from 1 to 1000');
      const companyId = input.values.company === undefined ? undefined : reference(input, 'company');
      const before = new Date(Date.now() - ms);
      const flows = await stuckFlows(await context.temporal(), before, limit, companyId);
      return { waiting_since_before: before.toISOString(), flows };
    },
  },
];

const UNITS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `30m`, `12h`, `1d` in milliseconds; null for anything else. */
function durationMs(text: string): number | null {
  const match = /^(\d{1,6})([mhd])$/.exec(text);
  return match ? Number(match[1]) * UNITS[match[2]!]! : null;
}
