import { uuidv7 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import { MATCH_KEY_LENGTH, type BookAccountRuleMatch, type BookAccountRuleSource } from './book-account-rule.entity.ts';

/** What a line is matched by: its product's external_id, or its description. */
export interface RuleKey {
  matchKind: BookAccountRuleMatch;
  matchKey: string;
}

/** A rule as the accounting agent reads it. */
export interface LearntRule extends RuleKey {
  bookAccountExternalId: string;
  source: BookAccountRuleSource;
  sourceReference: string;
  updatedAt: Date;
}

/** A book account other suppliers' rules send one key to, and how many suppliers' rules do. */
export interface OtherSuppliersRule extends RuleKey {
  bookAccountExternalId: string;
  suppliers: number;
}

/**
 * A description as rules match it: lower case, without diacritics, one space between words, at most 500 characters
 * (cut by code point, so that no surrogate pair is split).
 */
export function normalizedDescription(text: string): string {
  const folded = text.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').replace(/\s+/g, ' ').trim();
  return Array.from(folded).slice(0, MATCH_KEY_LENGTH).join('').trimEnd();
}

/** The key as stored: descriptions normalized, product ids trimmed; empty when there is nothing to match by. */
function storedKey(key: RuleKey): RuleKey {
  const matchKey =
    key.matchKind === 'description'
      ? normalizedDescription(key.matchKey)
      : Array.from(key.matchKey.trim()).slice(0, MATCH_KEY_LENGTH).join('');
  return { matchKind: key.matchKind, matchKey };
}

/** The distinct non-empty keys, stored as rules store them. */
function distinctKeys(keys: RuleKey[]): RuleKey[] {
  const byKey = new Map<string, RuleKey>();
  for (const key of keys.map(storedKey)) if (key.matchKey) byKey.set(`${key.matchKind}\u0000${key.matchKey}`, key);
  return [...byKey.values()];
}

const LEARN = `insert into "book_account_rules" ("id", "company_id", "beneficiary_id", "match_kind", "match_key",
  "book_account_external_id", "source", "source_reference", "created_at", "updated_at")
select r."id", :companyId, :beneficiaryId, r."kind"::book_account_rule_match, r."key", r."account",
  :source::book_account_rule_source, :sourceReference, now(), now()
from jsonb_to_recordset(:rules::jsonb) as r("id" uuid, "kind" text, "key" text, "account" text)
on conflict on constraint "book_account_rules_one_per_key" do update set
  "book_account_external_id" = excluded."book_account_external_id", "source" = excluded."source",
  "source_reference" = excluded."source_reference", "updated_at" = excluded."updated_at"`;

/**
 * Learns what a person decided for one supplier's lines, in one statement: each key now goes to its book account,
 * replacing what was learnt before (the newest decision wins). Empty keys or accounts are ignored; a key given twice
 * keeps its last account. Answers how many rules were written.
 */
export async function learnRules(
  em: EntityManager,
  input: {
    companyId: string;
    beneficiaryId: string;
    rules: (RuleKey & { bookAccountExternalId: string })[];
    source: BookAccountRuleSource;
    sourceReference: string;
  },
): Promise<number> {
  const byKey = new Map<string, { id: string; kind: string; key: string; account: string }>();
  for (const rule of input.rules) {
    const key = storedKey(rule);
    const account = rule.bookAccountExternalId.trim();
    if (!key.matchKey || !account) continue;
    const slot = `${key.matchKind}\u0000${key.matchKey}`;
    // Re-inserted so that the batch keeps the order of the last decisions.
    byKey.delete(slot);
    byKey.set(slot, { id: uuidv7(), kind: key.matchKind, key: key.matchKey, account });
  }
  if (byKey.size === 0) return 0;
  await runStatement(em, LEARN, {
    companyId: input.companyId,
    beneficiaryId: input.beneficiaryId,
    source: input.source,
    sourceReference: input.sourceReference,
    rules: JSON.stringify([...byKey.values()]),
  });
  return byKey.size;
}

// Both read the keys as rows of (kind, key): served by book_account_rules_one_per_key (company, supplier, kind, key)
// and by the (company, kind, key) index for other suppliers.
const KEYS = `unnest(cast(array[:kinds] as book_account_rule_match[]), cast(array[:keys] as text[])) as k("kind", "key")`;

const RULES_FOR = `select r."match_kind", r."match_key", r."book_account_external_id", r."source", r."source_reference",
  r."updated_at"
from ${KEYS}
join "book_account_rules" as r on r."company_id" = :companyId and r."beneficiary_id" = :beneficiaryId
  and r."match_kind" = k."kind" and r."match_key" = k."key"
limit :limit`;

/** A statement and its parameters (the tests ask PostgreSQL for its plan). */
export interface RuleStatement {
  sql: string;
  params: Record<string, unknown>;
}

const keyParams = (keys: RuleKey[]) => ({
  kinds: keys.map((key) => key.matchKind),
  keys: keys.map((key) => key.matchKey),
});

/** How `rulesFor` reads: null when no key is left to look for. */
export function rulesForStatement(input: {
  companyId: string;
  beneficiaryId: string;
  keys: RuleKey[];
}): RuleStatement | null {
  const keys = distinctKeys(input.keys);
  if (keys.length === 0) return null;
  const params = {
    companyId: input.companyId,
    beneficiaryId: input.beneficiaryId,
    ...keyParams(keys),
    limit: keys.length,
  };
  return { sql: RULES_FOR, params };
}

/** The supplier's rules for these keys (at most one per key), in one query. */
export async function rulesFor(
  em: EntityManager,
  input: { companyId: string; beneficiaryId: string; keys: RuleKey[] },
): Promise<LearntRule[]> {
  const statement = rulesForStatement(input);
  if (!statement) return [];
  const rows = await runStatement<{
    match_kind: BookAccountRuleMatch;
    match_key: string;
    book_account_external_id: string;
    source: BookAccountRuleSource;
    source_reference: string;
    updated_at: Date;
  }>(em, statement.sql, statement.params);
  return rows.map((row) => ({
    matchKind: row.match_kind,
    matchKey: row.match_key,
    bookAccountExternalId: row.book_account_external_id,
    source: row.source,
    sourceReference: row.source_reference,
    updatedAt: new Date(row.updated_at),
  }));
}

const OF_OTHER_SUPPLIERS = `select r."match_kind", r."match_key", r."book_account_external_id",
  count(*)::int as "suppliers"
from ${KEYS}
join "book_account_rules" as r on r."company_id" = :companyId and r."match_kind" = k."kind" and r."match_key" = k."key"
where r."beneficiary_id" is distinct from :beneficiaryId::uuid
group by r."match_kind", r."match_key", r."book_account_external_id"
order by "suppliers" desc, r."match_kind", r."match_key", r."book_account_external_id"
limit :limit`;

/** How `rulesOfOtherSuppliers` reads: null when there is nothing to look for. */
export function rulesOfOtherSuppliersStatement(input: {
  companyId: string;
  beneficiaryId: string | null;
  keys: RuleKey[];
  limit: number;
}): RuleStatement | null {
  const keys = distinctKeys(input.keys);
  const limit = Math.trunc(input.limit);
  if (keys.length === 0 || !(limit > 0)) return null;
  const params = { companyId: input.companyId, beneficiaryId: input.beneficiaryId, ...keyParams(keys), limit };
  return { sql: OF_OTHER_SUPPLIERS, params };
}

/**
 * For each key, the book accounts the company's other suppliers' rules send it to, with how many suppliers do (a
 * rule is one supplier's): one grouped query, at most `limit` rows, the most common first. Without a supplier
 * (`beneficiaryId` null), every supplier's rules count.
 */
export async function rulesOfOtherSuppliers(
  em: EntityManager,
  input: { companyId: string; beneficiaryId: string | null; keys: RuleKey[]; limit: number },
): Promise<OtherSuppliersRule[]> {
  const statement = rulesOfOtherSuppliersStatement(input);
  if (!statement) return [];
  const rows = await runStatement<{
    match_kind: BookAccountRuleMatch;
    match_key: string;
    book_account_external_id: string;
    suppliers: number;
  }>(em, statement.sql, statement.params);
  return rows.map((row) => ({
    matchKind: row.match_kind,
    matchKey: row.match_key,
    bookAccountExternalId: row.book_account_external_id,
    suppliers: row.suppliers,
  }));
}
