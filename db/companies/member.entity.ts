import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidKey } from '../ids.ts';
import { Company } from './company.entity.ts';

/** A person of the company, to whom workflow steps are assigned and decisions attributed. */
export const Member = defineEntity({
  name: 'Member',
  tableName: 'members',
  uniques: [{ properties: ['company', 'email'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    email: p.string(),
    name: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type Member = InferEntity<typeof Member>;
