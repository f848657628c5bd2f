import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { COUNTRIES } from '../companies/company.entity.ts';

/** A bank of Colombia or Mexico. Reference data shared by every company of that country. */
export const Bank = defineEntity({
  name: 'Bank',
  tableName: 'banks',
  uniques: [{ properties: ['country', 'code'] }],
  properties: {
    /** Derived from country and code, so a bank keeps its reference on every installation. */
    id: p.uuid().primary(),
    country: p.enum(COUNTRIES).nativeEnumName('country'),
    /** Colombia: the ACH/clearing code; Mexico: the three-digit code that starts a CLABE. */
    code: p.string(),
    name: p.string(),
    active: p.boolean().default(true),
  },
});
export type Bank = InferEntity<typeof Bank>;
