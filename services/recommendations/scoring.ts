// What the recommendation agent recommends from a supplier's past decisions, and when it may decide by itself: pure
// rules, no I/O (docs/decisions.md, "Step recommendations").
import type { PastDecision } from '../../db/recommendations/decision-history.ts';
import type { ConfidenceLevel, StepKind } from '../../db/workflow-steps/workflow-step.entity.ts';

/** The rules' figures, in one place. */
export const RECOMMENDATION_RULES = {
  /** With fewer decisions as evidence, nothing is recommended. */
  minDecisions: 5,
  /** The evidence: the supplier's latest decisions of the kind (and field), at most this many... */
  windowDecisions: 100,
  /** ...taken within this many days. */
  windowDays: 365,
  /** Approval: only decisions on documents of the same currency and an amount within this percentage. */
  amountTolerancePercent: 10,
  /** Confidence levels by score: at least `high`, at least `medium`, else low. */
  highScore: 0.8,
  mediumScore: 0.5,
  /** The score's confidence interval (95%). */
  z: 1.96,
} as const;

/** The step being opened, as the rules see it. */
export interface StepToAdvise {
  kind: StepKind;
  fieldName: string | null;
  amountCents: bigint;
  currency: string;
  supplierName: string;
}

/** A value the evidence favours: chosen `count` times in `sample` decisions. */
export interface Candidate {
  value: string;
  count: number;
  sample: number;
  /** From 0 to 1: the lower bound of the share's confidence interval, so a small sample scores low. */
  score: number;
  confidenceLevel: ConfidenceLevel;
}

/** The lower bound of the Wilson score interval of `count` successes in `sample` trials. */
export function wilsonLowerBound(count: number, sample: number, z: number = RECOMMENDATION_RULES.z): number {
  if (sample === 0) return 0;
  const share = count / sample;
  const z2 = z * z;
  const centre = share + z2 / (2 * sample);
  const margin = z * Math.sqrt((share * (1 - share)) / sample + z2 / (4 * sample * sample));
  return Math.max(0, (centre - margin) / (1 + z2 / sample));
}

export function confidenceOf(score: number): ConfidenceLevel {
  if (score >= RECOMMENDATION_RULES.highScore) return 'high';
  if (score >= RECOMMENDATION_RULES.mediumScore) return 'medium';
  return 'low';
}

const abs = (value: bigint) => (value < 0n ? -value : value);

/** Approval: the decision was on a document of the same currency and an amount close enough to this one's. */
export function comparableAmount(step: Pick<StepToAdvise, 'amountCents' | 'currency'>, past: PastDecision): boolean {
  return (
    past.currency === step.currency &&
    abs(past.amountCents - step.amountCents) * 100n <=
      BigInt(RECOMMENDATION_RULES.amountTolerancePercent) * abs(step.amountCents)
  );
}

/** The decisions that count as evidence for this step. */
export function evidenceFor(step: StepToAdvise, history: readonly PastDecision[]): PastDecision[] {
  return step.kind === 'approval' ? history.filter((past) => comparableAmount(step, past)) : [...history];
}

/**
 * The values a majority of the evidence chose, best first: one for a single choice (approval, classification), every
 * tag chosen for more than half of the documents for tagging. None when the evidence is thin.
 */
export function candidates(step: StepToAdvise, history: readonly PastDecision[]): Candidate[] {
  const evidence = evidenceFor(step, history);
  const sample = evidence.length;
  if (sample < RECOMMENDATION_RULES.minDecisions) return [];
  const counts = new Map<string, number>();
  for (const past of evidence)
    for (const value of new Set(past.values)) counts.set(value, (counts.get(value) ?? 0) + 1);
  const majority = [...counts.entries()]
    .filter(([, count]) => count * 2 > sample)
    .sort(([a, countA], [b, countB]) => countB - countA || (a < b ? -1 : a > b ? 1 : 0))
    .map(([value, count]): Candidate => {
      const score = wilsonLowerBound(count, sample);
      return { value, count, sample, score, confidenceLevel: confidenceOf(score) };
    });
  return step.kind === 'tagging' ? majority : majority.slice(0, 1);
}

/** Why, in words a person reads: the counts behind the recommendation. */
export function rationale(step: StepToAdvise, candidate: Candidate, label: string): string {
  const of = `of the last ${candidate.sample} documents of ${step.supplierName}`;
  if (step.kind === 'approval') {
    const approved = candidate.value === 'approve' ? candidate.count : candidate.sample - candidate.count;
    const rejected = candidate.sample - approved;
    return (
      `${candidate.value}: ${approved} approved and ${rejected} rejected for ${step.supplierName} ` +
      `at amounts within ${RECOMMENDATION_RULES.amountTolerancePercent}% of this one`
    );
  }
  if (step.kind === 'tagging') return `tag ${label}: chosen for ${candidate.count} ${of}`;
  return `${step.fieldName?.replaceAll('_', ' ') ?? 'classification'} ${label}: ${candidate.count} ${of}`;
}

/**
 * What the agent decides by itself with this threshold: the best value when its score is above it (every such tag, for
 * tagging); null when none is, or when the company has set no threshold.
 */
export function autoDecision(
  kind: StepKind,
  recommended: readonly Candidate[],
  threshold: number | null,
): string[] | null {
  if (threshold === null) return null;
  const above = recommended.filter((candidate) => candidate.score > threshold).map((candidate) => candidate.value);
  if (above.length === 0) return null;
  return kind === 'tagging' ? above : above.slice(0, 1);
}
