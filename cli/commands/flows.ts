import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { Company } from '../../db/companies/company.entity.ts';
import { Member } from '../../db/companies/member.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { FlowFile, toFlowDefinition } from '../../db/workflow-steps/flow-file.ts';
import { WorkflowFlow } from '../../db/workflow-steps/workflow-flow.entity.ts';
import { reference, required } from '../arguments.ts';
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
];
