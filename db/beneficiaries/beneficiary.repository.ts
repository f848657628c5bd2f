import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '../orm.ts';
import { Beneficiary } from './beneficiary.entity.ts';

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
