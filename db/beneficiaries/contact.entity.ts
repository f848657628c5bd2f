import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';
import { Beneficiary } from './beneficiary.entity.ts';

export const CONTACT_TYPES = ['email', 'phone'] as const;
export type ContactType = (typeof CONTACT_TYPES)[number];

/** One e-mail address or phone number of a beneficiary (its contact_information). */
export const BeneficiaryContact = defineEntity({
  name: 'BeneficiaryContact',
  tableName: 'beneficiary_contacts',
  uniques: [{ properties: ['beneficiary', 'type', 'value'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    beneficiary: () => p.manyToOne(Beneficiary),
    type: p.enum(CONTACT_TYPES).nativeEnumName('contact_type'),
    value: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});
export type BeneficiaryContact = InferEntity<typeof BeneficiaryContact>;
