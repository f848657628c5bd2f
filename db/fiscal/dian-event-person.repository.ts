import type { RadianPerson } from '../../fiscal/radian-person.ts';
import type { Company } from '../companies/company.entity.ts';
import type { EntityManager } from '../orm.ts';
import { FiscalCredential } from './fiscal-credential.entity.ts';

/** Registers (or, with null, removes) who receives for the company in RADIAN events 030 and 032. */
export async function setDianEventPerson(
  em: EntityManager,
  company: Company,
  person: RadianPerson | null,
): Promise<RadianPerson | null> {
  const credential =
    (await em.findOne(FiscalCredential, { company: company.id })) ??
    em.create(FiscalCredential, {
      company: company.id,
      satCiecStatus: null,
      rfc: null,
      dianForwardingEnabled: false,
      dianNit: null,
      dianLegalRepresentative: null,
      lastSyncAt: null,
      lastSyncStartedAt: null,
    });
  credential.dianEventPerson = person;
  await em.flush();
  return credential.dianEventPerson ?? null;
}

/** The company's registered event person, or null. */
export async function findDianEventPerson(em: EntityManager): Promise<RadianPerson | null> {
  return (await em.findOne(FiscalCredential, {}))?.dianEventPerson ?? null;
}
