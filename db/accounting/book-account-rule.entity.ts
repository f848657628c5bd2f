import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Beneficiary } from '../beneficiaries/beneficiary.entity.ts';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/** What a rule matches a line by: its ERP product, or its normalized description. */
export const BOOK_ACCOUNT_RULE_MATCHES = ['product', 'description'] as const;
export type BookAccountRuleMatch = (typeof BOOK_ACCOUNT_RULE_MATCHES)[number];

/** Where a person taught it: a `book_account` classification step, or a voucher they entered or corrected. */
export const BOOK_ACCOUNT_RULE_SOURCES = ['classification', 'voucher'] as const;
export type BookAccountRuleSource = (typeof BOOK_ACCOUNT_RULE_SOURCES)[number];

/** Longest key a rule keeps: descriptions are cut to it. */
export const MATCH_KEY_LENGTH = 500;

/**
 * What the company's people taught the accounting agent for one supplier: a line with this product, or this
 * description, goes to this book account, until a person decides otherwise.
 */
export const BookAccountRule = defineEntity({
  name: 'BookAccountRule',
  tableName: 'book_account_rules',
  uniques: [
    { name: 'book_account_rules_one_per_key', properties: ['company', 'beneficiary', 'matchKind', 'matchKey'] },
  ],
  // What other suppliers' lines with the same key go to, for recommendations.
  indexes: [{ properties: ['company', 'matchKind', 'matchKey'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    beneficiary: () => p.manyToOne(Beneficiary),
    matchKind: p.enum(BOOK_ACCOUNT_RULE_MATCHES).nativeEnumName('book_account_rule_match'),
    /** The product's external_id, or the description as `normalizedDescription` gives it. */
    matchKey: p.string().length(MATCH_KEY_LENGTH),
    bookAccountExternalId: p.string(),
    source: p.enum(BOOK_ACCOUNT_RULE_SOURCES).nativeEnumName('book_account_rule_source'),
    /** The step (classification) or accounting entry (voucher) the rule was last taught by. */
    sourceReference: p.uuid(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type BookAccountRule = InferEntity<typeof BookAccountRule>;
