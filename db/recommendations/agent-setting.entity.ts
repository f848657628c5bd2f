import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { STEP_KINDS } from '../workflow-steps/workflow-step.entity.ts';

/**
 * The recommendation agent of one company for one kind of step (`ops agents set`). Without a row, the agent is off.
 * On, it recommends when a step opens; with `autoDecideAbove`, it also decides by itself when its best score is above.
 */
export const AgentSetting = defineEntity({
  name: 'AgentSetting',
  tableName: 'agent_settings',
  uniques: [{ properties: ['company', 'kind'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    kind: p.enum(STEP_KINDS).nativeEnumName('step_kind'),
    enabled: p.boolean().default(false),
    /** A score from 0 to 1 (4 decimals); null: the agent only recommends. */
    autoDecideAbove: p.decimal('number').precision(5).scale(4).nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type AgentSetting = InferEntity<typeof AgentSetting>;
