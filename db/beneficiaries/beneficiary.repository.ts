import { UniqueConstraintViolationException, type FilterQuery } from '@mikro-orm/core';
import { Refusal } from '../../platform/refusal.ts';
import { Company, type Country } from '../companies/company.entity.ts';
import type { EntityManager } from '../orm.ts';
import { Beneficiary, type BeneficiaryType } from './beneficiary.entity.ts';
import { BeneficiaryContact, type ContactType } from './contact.entity.ts';
import { checkIdentifier } from './identifier.ts';

/**
 * One page of the company's beneficiaries (not deleted), by name, with their contacts and bank accounts: a bounded
 * number of queries whatever the page size. `search` matches the name or the identifier number, without case.
 */
export async function findBeneficiaryPage(
  em: EntityManager,
  filters: { search?: string },
  page: { number: number; size: number },
) {
  const and: FilterQuery<Beneficiary>[] = [{ isDeleted: false }];
  if (filters.search) {
    const pattern = `%${filters.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
    and.push({ $or: [{ name: { $ilike: pattern } }, { identifierNumber: { $ilike: pattern } }] });
  }
  const [beneficiaries, total] = await em.findAndCount(
    Beneficiary,
    { $and: and },
    {
      populate: ['contacts', 'bankAccounts', 'bankAccounts.bank'],
      orderBy: [{ name: 'asc' }, { id: 'asc' }],
      limit: page.size,
      offset: (page.number - 1) * page.size,
    },
  );
  return { beneficiaries, total };
}

/**
 * Why a beneficiary is not created: an identifier that is not one (`field`: the field at fault), or one the company
 * already has (`reference`: the beneficiary that has it).
 */
export class BeneficiaryRefused extends Refusal<'invalid_identifier' | 'beneficiary_exists' | 'beneficiary_deleted'> {
  constructor(code: BeneficiaryRefused['code'], message: string, details: { field: string } | { reference: string }) {
    super(code, message, { details });
  }
}

export interface NewBeneficiary {
  /** Given so that a retried request finds the beneficiary it wrote (null: a new one). */
  id: string | null;
  name: string;
  type: BeneficiaryType;
  email: string | null;
  phoneNumber: string | null;
  identifierType: string;
  identifierNumber: string;
  paymentTerms: number | null;
  fiscalAddress: string | null;
  contacts: { type: ContactType; value: string }[];
}

/**
 * A beneficiary of the company (not deleted), with its contacts and bank accounts (each bank loaded); null when the
 * company has none with this reference.
 */
export async function findBeneficiary(em: EntityManager, id: string): Promise<Beneficiary | null> {
  return em.findOne(
    Beneficiary,
    { id: id.toLowerCase(), isDeleted: false },
    { populate: ['contacts', 'bankAccounts', 'bankAccounts.bank'] },
  );
}

/**
 * Creates a beneficiary of the company, with its e-mail, phone number and other contacts as its contact information
 * (as an import records a supplier's). Its identifier is checked and written as imports write it
 * (`checkIdentifier`), so that the supplier's documents find it. Refused, writing nothing, when the identifier is not
 * one, or when the company already has a beneficiary with it (`reference` names that one), a deleted one included.
 */
export async function createBeneficiary(
  em: EntityManager,
  company: { id: string; country: Country },
  input: NewBeneficiary,
): Promise<Beneficiary> {
  const identifier = checkIdentifier(company.country, input.identifierType, input.identifierNumber);
  if (!identifier.ok)
    throw new BeneficiaryRefused('invalid_identifier', identifier.message, { field: identifier.field });
  const { identifierType, identifierNumber } = identifier;
  try {
    return await em.transactional(async (tx) => {
      const existing = await tx.findOne(
        Beneficiary,
        { identifierType, identifierNumber },
        { fields: ['id', 'isDeleted'] },
      );
      if (existing) throw alreadyThere(existing, identifierType, identifierNumber);
      const beneficiary = tx.create(Beneficiary, {
        ...(input.id ? { id: input.id } : {}),
        company: tx.getReference(Company, company.id),
        name: input.name,
        type: input.type,
        email: input.email,
        phoneNumber: input.phoneNumber,
        identifierType,
        identifierNumber,
        paymentTerms: input.paymentTerms,
        fiscalAddress: input.fiscalAddress,
      });
      for (const contact of contactsOf(input))
        tx.create(BeneficiaryContact, { company: beneficiary.company, beneficiary, ...contact });
      return beneficiary;
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
    // Another request created a beneficiary with this identifier meanwhile.
    const winner = await em
      .fork()
      .findOne(Beneficiary, { identifierType, identifierNumber }, { fields: ['id', 'isDeleted'] });
    if (!winner) throw error;
    throw alreadyThere(winner, identifierType, identifierNumber);
  }
}

function alreadyThere(existing: Pick<Beneficiary, 'id' | 'isDeleted'>, type: string, number: string) {
  return existing.isDeleted
    ? new BeneficiaryRefused(
        'beneficiary_deleted',
        `The beneficiary with ${type} ${number} was deleted; its identifier cannot be given to another`,
        { reference: existing.id },
      )
    : new BeneficiaryRefused('beneficiary_exists', `The company already has a beneficiary with ${type} ${number}`, {
        reference: existing.id,
      });
}

/** The e-mail, the phone number and the other contacts given, each once. */
function contactsOf(input: NewBeneficiary): { type: ContactType; value: string }[] {
  const all = [
    ...(input.email ? [{ type: 'email' as const, value: input.email }] : []),
    ...(input.phoneNumber ? [{ type: 'phone' as const, value: input.phoneNumber }] : []),
    ...input.contacts,
  ];
  const seen = new Set<string>();
  return all.filter((contact) => {
    const key = `${contact.type}\n${contact.value}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
