import { Company } from '../../db/companies/company.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { AgentSetting } from '../../db/recommendations/agent-setting.entity.ts';
import { STEP_KINDS } from '../../db/workflow-steps/workflow-step.entity.ts';
import {
  AgentSettingRefused,
  agentsOf,
  parseThreshold,
  setAgent,
  type AgentView,
} from '../../services/recommendations/agent-settings.ts';
import { oneOf, optional, reference, required } from '../arguments.ts';
import type { Command } from '../command.ts';
import { CliError, notFound } from '../errors.ts';

const shown = (company: string, agent: AgentView) => ({
  company,
  kind: agent.kind,
  enabled: agent.enabled,
  auto_decide_above: agent.autoDecideAbove,
});

/** The recommendation agents: per company and kind of step, off unless set. */
export const agentCommands: Command[] = [
  {
    group: 'agents',
    action: 'set',
    usage: 'agents set --company REF --kind approval|classification|tagging [--auto-decide-above 0-1] [--off]',
    options: {
      company: { type: 'string' },
      kind: { type: 'string' },
      'auto-decide-above': { type: 'string' },
      off: { type: 'boolean' },
    },
    async run(input, context) {
      const companyId = reference(input, 'company');
      const kind = oneOf(required(input, 'kind'), STEP_KINDS, 'kind');
      const threshold = optional(input, 'auto-decide-above');
      let autoDecideAbove: number | null = null;
      try {
        if (threshold !== undefined) autoDecideAbove = parseThreshold(threshold);
      } catch (error) {
        if (error instanceof AgentSettingRefused) throw new CliError(error.code, error.message, 2);
        throw error;
      }
      const orm = await context.orm();
      const company = await systemEm(orm).findOne(Company, { id: companyId });
      if (!company) throw notFound('company', companyId);
      const agent = await setAgent(companyEm(orm, company.id), company, {
        kind,
        enabled: input.values.off !== true,
        autoDecideAbove,
      });
      return shown(company.id, agent);
    },
  },
  {
    group: 'agents',
    action: 'list',
    usage: 'agents list [--company REF]',
    options: { company: { type: 'string' } },
    async run(input, context) {
      const orm = await context.orm();
      if (input.values.company === undefined) {
        const settings = await systemEm(orm).find(AgentSetting, {}, { orderBy: { company: 'asc', kind: 'asc' } });
        return {
          agents: settings.map((setting) =>
            shown(setting.company.id, {
              kind: setting.kind,
              enabled: setting.enabled,
              autoDecideAbove: setting.autoDecideAbove ?? null,
            }),
          ),
        };
      }
      const companyId = reference(input, 'company');
      const company = await systemEm(orm).findOne(Company, { id: companyId });
      if (!company) throw notFound('company', companyId);
      const agents = await agentsOf(companyEm(orm, company.id), company.id);
      return { agents: agents.map((agent) => shown(company.id, agent)) };
    },
  },
];
