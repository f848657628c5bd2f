import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import type { RadianPerson } from '../../fiscal/radian-person.ts';
import { uuidKey } from '../ids.ts';

export const CIEC_STATUSES = ['pending', 'valid', 'invalid'] as const;
export type CiecStatus = (typeof CIEC_STATUSES)[number];

/** What a company has set up for fiscal sync: its SAT CIEC state (Mexico) or DIAN forwarding and credentials (Colombia). */
export const FiscalCredential = defineEntity({
  name: 'FiscalCredential',
  tableName: 'fiscal_credentials',
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company).unique(),
    /** Null when no CIEC is registered; the CIEC itself is kept by the SAT extraction provider. */
    satCiecStatus: p.enum(CIEC_STATUSES).nativeEnumName('ciec_status').nullable(),
    rfc: p.string().nullable(),
    dianForwardingEnabled: p.boolean().default(false),
    dianNit: p.string().nullable(),
    dianLegalRepresentative: p.string().nullable(),
    /** DIAN's test set for the company's habilitación: its events go through SendTestSetAsync while it is set. */
    dianTestSetId: p.string().nullable(),
    /** Who receives for the company, named in RADIAN events 030 and 032 (DIAN refuses them without); set as a whole. */
    dianEventPerson: p.json<RadianPerson>().nullable(),
    /** Colombia's next window starts the day after. */
    lastSyncAt: p.datetime().nullable(),
    /** When the last accepted POST /fiscal-sync started (database clock): the hourly rate limit reads and claims it under a row lock. */
    lastSyncStartedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type FiscalCredential = InferEntity<typeof FiscalCredential>;
