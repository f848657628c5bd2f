import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { Document } from './document.entity.ts';

export const ACTOR_TYPES = ['system', 'user', 'agent'] as const;
export type ActorType = (typeof ACTOR_TYPES)[number];

/** Who did it: the system (with its source, e.g. an integration), a person, or an agent. */
export type Actor = { type: ActorType; source?: string; name?: string; email?: string };

/** One entry of a document's history, e.g. `document.created` or `document.approved`. */
export const ActivityLog = defineEntity({
  name: 'ActivityLog',
  tableName: 'activity_logs',
  indexes: [{ properties: ['document', 'createdAt'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    document: () => p.manyToOne(Document),
    /** Open list (`document.created`, `document.approved`, `document.updated`, ...). */
    event: p.string(),
    actor: p.json<Actor>(),
    metadata: p.json<Record<string, unknown>>().onCreate(() => ({})),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type ActivityLog = InferEntity<typeof ActivityLog>;
