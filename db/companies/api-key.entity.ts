import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidKey } from '../ids.ts';
import { Company } from './company.entity.ts';

export const SCOPES = ['payments:read', 'payments:write', 'beneficiaries:read', 'beneficiaries:write'] as const;
export type Scope = (typeof SCOPES)[number];

/** A company's credential. Only a SHA-256 hash of the secret is kept; the prefix is shown to operators. */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_keys',
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company).index(),
    prefix: p.string().unique(),
    secretHash: p.string(),
    /** Empty means full access, as the spec keeps for tokens without scope. */
    scopes: p.array().$type<Scope[]>().default([]),
    createdAt: p.datetime().onCreate(() => new Date()),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;
