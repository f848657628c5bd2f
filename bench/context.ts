import type { Client } from '@temporalio/client';
import type { TemporalHandle } from '../temporal/handle.ts';
import type { MemorySampler } from './memory.ts';
import type { SeedSummary } from './seed.ts';
import type { BenchStack } from './stack.ts';
import { median, type Latency } from './stats.ts';

/** What every scenario gets: the running product, the seeded data, the baselines, and the run settings. */
export interface BenchContext {
  stack: BenchStack;
  seed: SeedSummary;
  /** The bench's own Temporal client on the product's task queue (to start lifecycles and deliveries as the product does). */
  product: TemporalHandle;
  raw: { httpUrl: string; httpPid: number; temporal: Client };
  memory: MemorySampler;
  runs: number;
  /** Seconds of each HTTP load run, and its connections. */
  seconds: number;
  connections: number;
  log(line: string): void;
}

/** One line of the report: a product figure against its same-run baseline, and the target on their ratio. */
export interface Row {
  path: string;
  figure: string;
  unit: string;
  baselineName: string;
  /** Medians over the runs. */
  product: number;
  baseline: number;
  /** Median of the per-run ratios product / baseline (each run's pair measured back to back). */
  ratio: number;
  target: string;
  met: boolean;
  /** A figure reported as it is, against no target (its bound says what it shows). */
  reported?: true;
  /** The product's latency on this path (medians over the runs), and the baseline's when it has one. */
  latency?: Latency;
  baselineLatency?: Latency;
  runs: { product: number[]; baseline: number[]; ratios: number[] };
  /** Checks beside the ratio (p99 against p50, a bounded query count...), each met or not. */
  checks?: { name: string; value: string; met: boolean }[];
  /** What bounds the figure, shown when a target is missed (and always for a reported figure): lines split by \n. */
  bound?: string;
}

/**
 * What bounds a figure, as the report shows it: at most five lines, the last naming the decision record
 * (docs/decisions.md) that says the rest.
 */
export type Bound = readonly [string, string?, string?, string?, string?];

/** A bound as it is kept in the results: its lines joined by newlines. */
export const boundText = (lines: Bound): string => lines.join('\n');

/** `min`: the ratio must be at least `target`; `max`: at most; `report`: shown as it is, no target. */
export type RowTarget = { kind: 'min' | 'max'; target: number } | { kind: 'report' };

export type RowInput = RowTarget & {
  path: string;
  figure: string;
  unit: string;
  baselineName: string;
  product: number[];
  baseline: number[];
  latency?: Latency[];
  baselineLatency?: Latency[];
  checks?: Row['checks'];
  bound?: Bound;
};

/** Whether the ratio meets its target; a reported figure has none to miss. */
function meets(input: RowTarget, ratio: number): boolean {
  if (input.kind === 'report') return true;
  return input.kind === 'min' ? ratio >= input.target : ratio <= input.target;
}

const targetText = (input: RowTarget) =>
  input.kind === 'report' ? 'none (reported)' : `${input.kind === 'min' ? '≥' : '≤'} ${input.target}×`;

const medianLatency = (runs: Latency[] | undefined): Latency | undefined =>
  runs?.length ? { p50: median(runs.map((run) => run.p50)), p99: median(runs.map((run) => run.p99)) } : undefined;

export function row(input: RowInput): Row {
  const ratios = input.product.map((value, index) => value / input.baseline[index]!);
  const ratio = median(ratios);
  const checks = input.checks ?? [];
  const met = meets(input, ratio) && checks.every((check) => check.met);
  return {
    path: input.path,
    figure: input.figure,
    unit: input.unit,
    baselineName: input.baselineName,
    product: median(input.product),
    baseline: median(input.baseline),
    ratio,
    target: targetText(input),
    met,
    ...(input.kind === 'report' ? { reported: true as const } : {}),
    ...(input.latency ? { latency: medianLatency(input.latency) } : {}),
    ...(input.baselineLatency ? { baselineLatency: medianLatency(input.baselineLatency) } : {}),
    runs: { product: input.product, baseline: input.baseline, ratios },
    ...(checks.length ? { checks } : {}),
    ...(input.bound ? { bound: boundText(input.bound) } : {}),
  };
}
