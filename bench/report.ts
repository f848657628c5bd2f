// The results as a table (bench/results/latest.md) and as data (bench/results/latest.json).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Row } from './context.ts';
import type { PaymentPlan } from './scenarios/reads.ts';

export interface MemoryFigure {
  process: 'api' | 'worker';
  /** Peak RSS while it was under load, MB. */
  peakMb: number;
  under: string;
  limitMb: number;
  met: boolean;
  /** What bounds it, shown when the limit is exceeded. */
  bound: string;
}

export interface Report {
  startedAt: string;
  minutes: number;
  machine: { cpus: number; model: string; node: string; loadAverage: { start: number[]; end: number[] } };
  settings: { runs: number; secondsPerLoad: number; connections: number; documentsPerCompany: number };
  dataSet: { rows: Record<string, number>; seedSeconds: number };
  rows: Row[];
  memory: MemoryFigure[];
  queryCounts: Record<string, number>;
  paymentPlans: PaymentPlan[];
  notes: string[];
}

const RESULTS = new URL('./results/', import.meta.url).pathname;

export function machine(loadAtStart: number[]): Report['machine'] {
  return {
    cpus: cpus().length,
    model: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    loadAverage: { start: loadAtStart, end: loadavg() },
  };
}

const number = (value: number) =>
  Number.isFinite(value) ? (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)) : '–';
const latency = (value: Row['latency']) => (value ? `${number(value.p50)} / ${number(value.p99)}` : '–');
const mark = (met: boolean) => (met ? 'yes' : '**no**');

function markdown(report: Report): string {
  const lines: string[] = [];
  lines.push('# Benchmark results', '');
  lines.push(
    `\`npm run bench\`, ${report.startedAt}: ${report.minutes.toFixed(1)} minutes on ${report.machine.cpus} × ${report.machine.model}, Node ${report.machine.node} (load average ${report.machine.loadAverage.start.map((v) => v.toFixed(1)).join(' ')} at the start, ${report.machine.loadAverage.end.map((v) => v.toFixed(1)).join(' ')} at the end).`,
    '',
  );
  lines.push(
    `Every figure is a ratio against a baseline measured in the same run, back to back: the median of ${report.settings.runs} per-run ratios. HTTP loads are autocannon over loopback, ${report.settings.connections} connections, ${report.settings.secondsPerLoad} s per run after a warm-up. The API and the worker run as separate processes with NODE_ENV=production; data set: ${report.settings.documentsPerCompany.toLocaleString('en')} documents in each of 2 companies.`,
    '',
  );
  lines.push(
    '| Path | Figure | Product | Baseline | Ratio | Target | Met | Product p50 / p99 (ms) | Baseline p50 / p99 (ms) |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|');
  for (const row of report.rows) {
    lines.push(
      `| ${row.path} | ${row.figure} (${row.unit}) | ${number(row.product)} | ${number(row.baseline)} (${row.baselineName}) | ${row.ratio.toFixed(2)}× | ${row.target} | ${mark(row.met)} | ${latency(row.latency)} | ${latency(row.baselineLatency)} |`,
    );
  }
  for (const figure of report.memory) {
    lines.push(
      `| ${figure.process} RSS under ${figure.under} | peak RSS (MB) | ${number(figure.peakMb)} | – | – | < ${figure.limitMb} MB | ${mark(figure.met)} | – | – |`,
    );
  }
  lines.push('');
  const checks = report.rows.flatMap((row) =>
    (row.checks ?? []).map((check) => `| ${row.path} | ${check.name} | ${check.value} | ${mark(check.met)} |`),
  );
  if (checks.length)
    lines.push('Checks beside the ratios:', '', '| Path | Check | Value | Met |', '|---|---|---|---|', ...checks, '');

  const missed = report.rows.filter((row) => !row.met);
  const missedMemory = report.memory.filter((figure) => !figure.met);
  lines.push('## Missed targets: what bounds them', '');
  if (missed.length === 0 && missedMemory.length === 0) lines.push('None.');
  for (const row of missed)
    lines.push(
      `- **${row.path}** (${row.ratio.toFixed(2)}×, target ${row.target}): ${row.bound ?? 'not analysed yet.'}`,
    );
  for (const figure of missedMemory)
    lines.push(
      `- **${figure.process} RSS** (${number(figure.peakMb)} MB, limit ${figure.limitMb} MB): ${figure.bound}`,
    );
  lines.push('');
  if (report.notes.length) lines.push('## Notes', '', ...report.notes.map((note) => `- ${note}`), '');

  lines.push(
    '## Queries per request',
    '',
    '| Request | SQL statements |',
    '|---|---|',
    ...Object.entries(report.queryCounts).map(([request, count]) => `| ${request} | ${count} |`),
    '',
  );
  lines.push(
    '## Query plans of the payments filters',
    '',
    'EXPLAIN ANALYZE of the statements the product sends for each filter (Colombian company). A sequential scan of payments, payables, documents or their tag links counts as a filter not served by an index.',
    '',
  );
  for (const plan of report.paymentPlans) {
    lines.push(
      `### ${plan.filter}: ${plan.indexed ? 'served by indexes' : '**sequential scan**'}`,
      '',
      '```sql',
      plan.statement,
      '```',
      '',
      '```',
      plan.plan,
      '```',
      '',
    );
  }
  lines.push('## Runs', '', '| Path | Product per run | Baseline per run | Ratio per run |', '|---|---|---|---|');
  for (const row of report.rows)
    lines.push(
      `| ${row.path} | ${row.runs.product.map(number).join(', ')} | ${row.runs.baseline.map(number).join(', ')} | ${row.runs.ratios.map((ratio) => ratio.toFixed(2)).join(', ')} |`,
    );
  lines.push(
    '',
    `Data set: ${Object.entries(report.dataSet.rows)
      .map(([table, count]) => `${count.toLocaleString('en')} ${table}`)
      .join(', ')}; seeded in ${report.dataSet.seedSeconds.toFixed(0)} s.`,
    '',
  );
  return `${lines.join('\n')}\n`;
}

export function writeReport(report: Report): { markdown: string; json: string } {
  mkdirSync(RESULTS, { recursive: true });
  const paths = { markdown: `${RESULTS}latest.md`, json: `${RESULTS}latest.json` };
  writeFileSync(paths.markdown, markdown(report));
  writeFileSync(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  return paths;
}
