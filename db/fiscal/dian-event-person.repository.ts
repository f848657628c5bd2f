import type { RadianPerson } from '../../fiscal/radian-person.ts';
import type { Company } from '../companies/company.entity.ts';
import type { EntityManager } from '../orm.ts';
import { FiscalCredential } from './fiscal-credential.entity.ts';
import { setFiscalCredentials } from './fiscal-sync.repository.ts';

/** Registers (or, with null, removes) who receives for the company in RADIAN events 030 and 032. */
export async function setDianEventPerson(
  em: EntityManager,
  company: Company,
  person: RadianPerson | null,
): Promise<RadianPerson | null> {
  const credential = await setFiscalCredentials(em, company, { dianEventPerson: person });
  return credential.dianEventPerson ?? null;
}

/** The company's registered event person, or null. */
export async function findDianEventPerson(em: EntityManager): Promise<RadianPerson | null> {
  return (await em.findOne(FiscalCredential, {}))?.dianEventPerson ?? null;
}
