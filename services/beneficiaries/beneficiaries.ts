import type { EntityManager } from '../../db/orm.ts';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import { BeneficiaryContact, type ContactType } from '../../db/beneficiaries/contact.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { FiscalParty } from '../../fiscal/normalized-document.ts';

/** The supplier of a fiscal document becomes a beneficiary, or refreshes the one with the same identifier. */
export async function upsertSupplier(em: EntityManager, company: Company, supplier: FiscalParty): Promise<Beneficiary> {
  const existing = await em.findOne(
    Beneficiary,
    { company, identifierType: supplier.identifierType, identifierNumber: supplier.identifierNumber },
    { populate: ['contacts'] },
  );
  const beneficiary =
    existing ??
    em.create(Beneficiary, {
      company,
      name: supplier.name,
      type: 'supplier',
      identifierType: supplier.identifierType,
      identifierNumber: supplier.identifierNumber,
    });
  beneficiary.name = supplier.name || beneficiary.name;
  beneficiary.email = supplier.email ?? beneficiary.email ?? null;
  beneficiary.phoneNumber = supplier.phone ?? beneficiary.phoneNumber ?? null;
  beneficiary.fiscalAddress = supplier.address ?? beneficiary.fiscalAddress ?? null;
  const known = new Set(
    (existing ? existing.contacts.getItems() : []).map((contact) => `${contact.type}:${contact.value}`),
  );
  const contacts: [ContactType, string | null][] = [
    ['email', supplier.email],
    ['phone', supplier.phone],
  ];
  for (const [type, value] of contacts) {
    if (value && !known.has(`${type}:${value}`)) em.create(BeneficiaryContact, { company, beneficiary, type, value });
  }
  return beneficiary;
}
