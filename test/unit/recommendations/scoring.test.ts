import { describe, expect, it } from 'vitest';
import type { PastDecision } from '../../../db/recommendations/decision-history.ts';
import { AgentSettingRefused, parseThreshold } from '../../../services/recommendations/agent-settings.ts';
import {
  autoDecision,
  candidates,
  confidenceOf,
  rationale,
  RECOMMENDATION_RULES,
  wilsonLowerBound,
  type StepToAdvise,
} from '../../../services/recommendations/scoring.ts';

const step = (overrides: Partial<StepToAdvise> = {}): StepToAdvise => ({
  kind: 'classification',
  fieldName: 'cost_center',
  amountCents: 1_000_000_00n,
  currency: 'COP',
  supplierName: 'Ferretería Andina S.A.S.',
  ...overrides,
});
const decided = (values: string[], amountCents = 1_000_000_00n, currency = 'COP'): PastDecision => ({
  values,
  amountCents,
  currency,
});
const times = (count: number, decision: PastDecision) => Array.from({ length: count }, () => decision);

describe('the score', () => {
  it('is the lower bound of the Wilson interval: a share discounted for a small sample', () => {
    expect(wilsonLowerBound(0, 0)).toBe(0);
    expect(wilsonLowerBound(5, 5)).toBeCloseTo(5 / (5 + 1.96 ** 2), 10);
    expect(wilsonLowerBound(9, 10)).toBeCloseTo(0.5958, 3);
    expect(wilsonLowerBound(24, 24)).toBeCloseTo(0.8621, 3);
    // The same share on more decisions scores higher.
    expect(wilsonLowerBound(90, 100)).toBeGreaterThan(wilsonLowerBound(9, 10));
  });

  it('names its confidence level at the recorded thresholds', () => {
    expect(confidenceOf(RECOMMENDATION_RULES.highScore)).toBe('high');
    expect(confidenceOf(RECOMMENDATION_RULES.highScore - 0.0001)).toBe('medium');
    expect(confidenceOf(RECOMMENDATION_RULES.mediumScore)).toBe('medium');
    expect(confidenceOf(RECOMMENDATION_RULES.mediumScore - 0.0001)).toBe('low');
  });
});

describe('what is recommended', () => {
  it('nothing on thin evidence: fewer decisions than the minimum', () => {
    const few = times(RECOMMENDATION_RULES.minDecisions - 1, decided(['cc-bog']));
    expect(candidates(step(), few)).toEqual([]);
    expect(candidates(step(), [...few, decided(['cc-bog'])])).toHaveLength(1);
  });

  it('classification: the value a majority chose, with its counts in the rationale', () => {
    const history = [...times(9, decided(['cc-bog'])), decided(['cc-med'])];
    const [best, ...rest] = candidates(step(), history);
    expect(rest).toEqual([]);
    expect(best).toMatchObject({ value: 'cc-bog', count: 9, sample: 10, confidenceLevel: 'medium' });
    expect(rationale(step(), best!, 'Bogotá')).toBe(
      'cost center Bogotá: 9 of the last 10 documents of Ferretería Andina S.A.S.',
    );
  });

  it('nothing when no value holds a majority', () => {
    const history = [...times(3, decided(['cc-bog'])), ...times(3, decided(['cc-med']))];
    expect(candidates(step(), history)).toEqual([]);
  });

  it('tagging: every tag chosen for more than half of the documents, the most chosen first', () => {
    const tagging = step({ kind: 'tagging', fieldName: null });
    const history = [
      ...times(6, decided(['servicios', 'recurrente'])),
      ...times(2, decided(['recurrente'])),
      ...times(2, decided(['urgente'])),
    ];
    const found = candidates(tagging, history);
    expect(found.map((candidate) => [candidate.value, candidate.count])).toEqual([
      ['recurrente', 8],
      ['servicios', 6],
    ]);
    expect(rationale(tagging, found[0]!, 'recurrente')).toBe(
      'tag recurrente: chosen for 8 of the last 10 documents of Ferretería Andina S.A.S.',
    );
  });

  it('approval: only decisions on amounts within the tolerance, in the same currency', () => {
    const approval = step({ kind: 'approval', fieldName: null, amountCents: 1_000_000_00n });
    const history = [
      ...times(24, decided(['approve'], 1_050_000_00n)),
      ...times(10, decided(['reject'], 1_200_000_00n)), // 20% more: another order of purchase
      ...times(10, decided(['reject'], 1_000_000_00n, 'USD')),
      decided(['approve'], 900_000_00n), // exactly 10% less: counts
    ];
    const [best] = candidates(approval, history);
    expect(best).toMatchObject({ value: 'approve', count: 25, sample: 25, confidenceLevel: 'high' });
    expect(rationale(approval, best!, 'Approve')).toBe(
      'approve: 25 approved and 0 rejected for Ferretería Andina S.A.S. at amounts within 10% of this one',
    );
    const rejecting = [...times(6, decided(['reject'])), decided(['approve'])];
    const [reject] = candidates(approval, rejecting);
    expect(rationale(approval, reject!, 'Reject')).toBe(
      'reject: 1 approved and 6 rejected for Ferretería Andina S.A.S. at amounts within 10% of this one',
    );
    // Out of the amount band, the evidence is thin.
    expect(candidates({ ...approval, amountCents: 5_000_000_00n }, history)).toEqual([]);
  });
});

describe('deciding by itself', () => {
  const history = times(10, decided(['cc-bog']));
  const found = candidates(step(), history);

  it('only when the best score is above the threshold, and never without one', () => {
    const score = found[0]!.score;
    expect(autoDecision('classification', found, null)).toBeNull();
    expect(autoDecision('classification', found, score)).toBeNull();
    expect(autoDecision('classification', found, score - 0.01)).toEqual(['cc-bog']);
    expect(autoDecision('classification', [], 0)).toBeNull();
  });

  it('tagging: with every recommended tag above the threshold', () => {
    const tagging = step({ kind: 'tagging', fieldName: null });
    const tags = candidates(tagging, [...times(20, decided(['a', 'b'])), ...times(4, decided(['a']))]);
    const scoreOfB = tags.find((candidate) => candidate.value === 'b')!.score;
    expect(autoDecision('tagging', tags, 0)).toEqual(['a', 'b']);
    expect(autoDecision('tagging', tags, scoreOfB)).toEqual(['a']);
  });

  it("takes an operator's threshold from 0 to 1 and refuses anything else with one code", () => {
    expect(parseThreshold('0.95')).toBe(0.95);
    expect(parseThreshold('1')).toBe(1);
    expect(parseThreshold('0')).toBe(0);
    expect(parseThreshold('.123456')).toBe(0.1235);
    for (const text of ['1.5', '-0.1', 'abc', '', '0x1', '1e-1', 'NaN', 'Infinity']) {
      expect(() => parseThreshold(text)).toThrow(AgentSettingRefused);
      try {
        parseThreshold(text);
      } catch (error) {
        expect((error as AgentSettingRefused).code).toBe('invalid_threshold');
      }
    }
  });
});
