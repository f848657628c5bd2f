import type { Company } from '../../db/companies/company.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import { AgentSetting } from '../../db/recommendations/agent-setting.entity.ts';
import { STEP_KINDS, type StepKind } from '../../db/workflow-steps/workflow-step.entity.ts';
import { Refusal } from '../../platform/refusal.ts';

/** A setting the operator may not give, refused before anything is written. */
export class AgentSettingRefused extends Refusal<'invalid_threshold'> {}

/** How a company's agent for one kind of step is set (off, with no threshold, when never set). */
export interface AgentView {
  kind: StepKind;
  enabled: boolean;
  /** Above this score the agent decides by itself; null: it only recommends. */
  autoDecideAbove: number | null;
}

/** An operator's threshold: a number from 0 to 1, kept to 4 decimals. */
export function parseThreshold(text: string): number {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (!/^(\d+(\.\d*)?|\.\d+)$/.test(trimmed) || value > 1)
    throw new AgentSettingRefused(
      'invalid_threshold',
      `The auto-decide threshold must be a number from 0 to 1 (got ${JSON.stringify(text)})`,
    );
  return Math.round(value * 10_000) / 10_000;
}

const view = (kind: StepKind, setting: AgentSetting | null | undefined): AgentView => ({
  kind,
  enabled: setting?.enabled ?? false,
  autoDecideAbove: setting?.autoDecideAbove ?? null,
});

/** Sets (replaces) the company's agent for one kind of step. */
export async function setAgent(
  em: EntityManager,
  company: Company,
  input: { kind: StepKind; enabled: boolean; autoDecideAbove: number | null },
): Promise<AgentView> {
  const setting = await em.upsert(
    AgentSetting,
    { company, kind: input.kind, enabled: input.enabled, autoDecideAbove: input.autoDecideAbove },
    {
      onConflictFields: ['company', 'kind'],
      onConflictAction: 'merge',
      onConflictMergeFields: ['enabled', 'autoDecideAbove', 'updatedAt'],
    },
  );
  return view(input.kind, setting);
}

/** The company's agent for one kind of step. */
export async function agentFor(em: EntityManager, companyId: string, kind: StepKind): Promise<AgentView> {
  return view(kind, await em.findOne(AgentSetting, { company: companyId, kind }));
}

/** The company's agents, one per kind of step. */
export async function agentsOf(em: EntityManager, companyId: string): Promise<AgentView[]> {
  const settings = await em.find(AgentSetting, { company: companyId });
  return STEP_KINDS.map((kind) =>
    view(
      kind,
      settings.find((setting) => setting.kind === kind),
    ),
  );
}
