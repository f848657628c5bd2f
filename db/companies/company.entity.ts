import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { uuidKey } from '../ids.ts';

export const COUNTRIES = ['COL', 'MEX'] as const;
export type Country = (typeof COUNTRIES)[number];

export const FEATURES = ['workflow_api'] as const;
export type Feature = (typeof FEATURES)[number];

/** A customer of the service: every API key, member and record belongs to exactly one company. */
export const Company = defineEntity({
  name: 'Company',
  tableName: 'companies',
  properties: {
    id: uuidKey(),
    name: p.string(),
    country: p.enum(COUNTRIES).nativeEnumName('country'),
    taxId: p.string().nullable(),
    features: p.array().$type<Feature[]>().default([]),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type Company = InferEntity<typeof Company>;
