import type { Document } from '../../db/documents/document.entity.ts';
import { activeCatalogLabels } from '../../db/erp/classification-options.ts';
import type { EntityManager } from '../../db/orm.ts';
import { decisionHistory } from '../../db/recommendations/decision-history.ts';
import { Tag, normalizeTagName } from '../../db/tags/tag.entity.ts';
import type { StepDecision, StepRecommendation } from '../../db/workflow-steps/workflow-step.entity.ts';
import { agentFor } from './agent-settings.ts';
import { autoDecision, candidates, rationale, RECOMMENDATION_RULES, type StepToAdvise } from './scoring.ts';

/** Who the activity log names when the agent decides a step. */
export const AGENT_NAME = 'Recommendation agent';

/** What the agent has to say about a step as it opens. */
export interface Advice {
  recommendations: StepRecommendation[];
  /** What it decides by itself (its threshold met), with the values' labels; null: a person decides. */
  decision: { values: string[]; labels: string[]; rationale: string } | null;
}

const DAY_MS = 86_400_000;

/**
 * The company's agent for this kind of step, when it is on: recommendations from the people's decisions on the
 * supplier's earlier documents (a bounded read of the decision history) and, above the company's threshold, the
 * decision it takes by itself. Null when the agent is off or the document has no supplier.
 */
export async function adviseStep(
  em: EntityManager,
  input: { document: Document; decision: StepDecision; now: Date },
): Promise<Advice | null> {
  const { document, decision } = input;
  const companyId = document.company.id;
  const agent = await agentFor(em, companyId, decision.kind);
  if (!agent.enabled || !document.beneficiary) return null;
  const step: StepToAdvise = {
    kind: decision.kind,
    fieldName: decision.fieldName,
    amountCents: document.amountCents,
    currency: document.currency,
    supplierName: document.beneficiary.name,
  };
  const history = await decisionHistory(em, {
    companyId,
    beneficiaryId: document.beneficiary.id,
    kind: decision.kind,
    fieldName: decision.fieldName,
    documentId: document.id,
    since: new Date(input.now.getTime() - RECOMMENDATION_RULES.windowDays * DAY_MS),
    limit: RECOMMENDATION_RULES.windowDecisions,
  });
  const found = candidates(step, history);
  // Only what the step still offers may be recommended (an option since removed, a tag deleted, an inactive record).
  const labels = await offeredLabels(
    em,
    decision,
    found.map((candidate) => candidate.value),
  );
  const offered = found.flatMap((candidate) => {
    const option = labels.get(candidate.value);
    return option ? [{ candidate: { ...candidate, value: option.value }, label: option.label }] : [];
  });
  const recommendations = offered.map(({ candidate, label }) => ({
    value: candidate.value,
    confidenceLevel: candidate.confidenceLevel,
    rationale: rationale(step, candidate, label),
  }));
  const values = autoDecision(
    decision.kind,
    offered.map(({ candidate }) => candidate),
    agent.autoDecideAbove,
  );
  if (!values) return { recommendations, decision: null };
  const chosen = offered.filter(({ candidate }) => values.includes(candidate.value));
  return {
    recommendations,
    decision: {
      values,
      labels: chosen.map(({ label }) => label),
      rationale: chosen.map(({ candidate, label }) => rationale(step, candidate, label)).join('; '),
    },
  };
}

/**
 * The values among `values` that the step offers, each with the value as the step takes it and its label: the step's
 * options, or, when they are a sample, any tag of the company (as the company writes it) or any active catalog record.
 */
async function offeredLabels(
  em: EntityManager,
  decision: StepDecision,
  values: string[],
): Promise<Map<string, { value: string; label: string }>> {
  const found = new Map<string, { value: string; label: string }>();
  for (const option of decision.options)
    if (values.includes(option.value)) found.set(option.value, { value: option.value, label: option.label });
  if (decision.optionsComplete || values.every((value) => found.has(value))) return found;
  const missing = values.filter((value) => !found.has(value));
  if (decision.kind === 'tagging') {
    const tags = await em.find(Tag, { normalizedName: { $in: missing.map(normalizeTagName) } }, { fields: ['name'] });
    const byName = new Map(tags.map((tag) => [normalizeTagName(tag.name), tag.name]));
    for (const value of missing) {
      const name = byName.get(normalizeTagName(value));
      if (name) found.set(value, { value: name, label: name });
    }
    return found;
  }
  const catalog = await activeCatalogLabels(em, decision.fieldName, missing);
  for (const [value, label] of catalog) found.set(value, { value, label });
  return found;
}
