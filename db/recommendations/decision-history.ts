import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import type { StepKind } from '../workflow-steps/workflow-step.entity.ts';

/** One decision a person took on a step of a supplier's document, as the recommendation agent learns from it. */
export interface PastDecision {
  values: string[];
  /** The decided document's amount and currency, as its step showed them. */
  amountCents: bigint;
  currency: string;
}

/** Whose decisions, of which kind of step (and, for a classification, of which field), and how far back. */
export interface DecisionHistoryQuery {
  companyId: string;
  beneficiaryId: string;
  kind: StepKind;
  /** Classification only: the field decided (null for a classification without one). */
  fieldName: string | null;
  /** The document being decided: its own earlier steps are not evidence about it. */
  documentId: string;
  since: Date;
  limit: number;
}

// Served by workflow_steps_decision_history_index (company, supplier, kind, completed_at; completed and decided by a
// person): an index range read newest first and cut at `limit`. Raw SQL, so it names the company itself.
const BY_KIND = `select "result" -> 'values' as "values", "entity" ->> 'amountCents' as "amount_cents",
  "entity" ->> 'currency' as "currency"
from "workflow_steps"
where "company_id" = :companyId and "beneficiary_id" = :beneficiaryId and "kind" = :kind::step_kind
  and "status" = 'completed' and "decided_by_agent" = false and "completed_at" >= :since
  and "document_id" <> :documentId`;
const ORDERED = `
order by "completed_at" desc
limit :limit`;
const BY_FIELD = `
  and ("decision" ->> 'fieldName') is not distinct from :fieldName::text`;

/** The statement and its parameters (the tests ask PostgreSQL for its plan). */
export function decisionHistoryStatement(query: DecisionHistoryQuery): {
  sql: string;
  params: Record<string, unknown>;
} {
  const params: Record<string, unknown> = {
    companyId: query.companyId,
    beneficiaryId: query.beneficiaryId,
    kind: query.kind,
    since: query.since,
    documentId: query.documentId,
    limit: query.limit,
  };
  if (query.kind !== 'classification') return { sql: BY_KIND + ORDERED, params };
  return { sql: BY_KIND + BY_FIELD + ORDERED, params: { ...params, fieldName: query.fieldName } };
}

/** The supplier's latest decisions of a kind taken by people in the company, newest first, at most `limit`. */
export async function decisionHistory(em: EntityManager, query: DecisionHistoryQuery): Promise<PastDecision[]> {
  const { sql, params } = decisionHistoryStatement(query);
  const rows = await runStatement<{ values: string[] | null; amount_cents: string | null; currency: string | null }>(
    em,
    sql,
    params,
  );
  return rows.map((row) => ({
    values: row.values ?? [],
    amountCents: BigInt(row.amount_cents ?? '0'),
    currency: row.currency ?? '',
  }));
}
