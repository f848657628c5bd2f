// The results of each shape as data (bench/results/latest.json for dev, production.json for production), and both
// shapes side by side as a table (bench/results/latest.md), from whichever of the two files exist.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import type { Row } from './context.ts';
import type { PaymentPlan } from './scenarios/reads.ts';
import type { BenchShape } from './stack.ts';

export interface MemoryFigure {
  process: 'api' | 'worker';
  /** Peak RSS under the bench's loads, MB: the highest process of its kind. */
  peakMb: number;
  under: string;
  /** How many processes of the kind were sampled (two of each in the production shape). */
  processes?: number;
  /** The peak under each load of the bench, MB. */
  loads?: Record<string, number>;
  limitMb: number;
  met: boolean;
  /** What bounds it, shown when the limit is exceeded: at most five lines, split by \n (see `Bound`). */
  bound: string;
}

export interface Report {
  /** Reports written before there were two shapes have none: they are of the dev shape. */
  shape?: BenchShape;
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
const DATA_FILES: Record<BenchShape, string> = { dev: 'latest.json', production: 'production.json' };

const SHAPES: Record<BenchShape, { title: string; command: string; what: string }> = {
  dev: {
    title: 'Development',
    command: 'npm run bench',
    what: 'embedded PostgreSQL, the Temporal dev server in memory and the simulators on loopback; the API and the worker as one process each, NODE_ENV=production',
  },
  production: {
    title: 'Production',
    command: 'BENCH_SHAPE=production npm run bench',
    what:
      "the production-shape suite's deployment: the Temporal server on PostgreSQL, two APIs and two workers with " +
      'NODE_ENV=production, the outside systems on a non-loopback address of a network namespace',
  },
};

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
const shapeOf = (report: Report): BenchShape => report.shape ?? 'dev';
const titleOf = (report: Report) => SHAPES[shapeOf(report)].title;
const MISSING = '–';

/** The keys of every report's items, in the order they first appear. */
function union<T>(reports: Report[], items: (report: Report) => T[], key: (item: T) => string): string[] {
  return [...new Set(reports.flatMap((report) => items(report).map(key)))];
}

const rowOf = (report: Report, path: string) => report.rows.find((row) => row.path === path);
const memoryOf = (report: Report, process: string) => report.memory.find((figure) => figure.process === process);
/** What the memory figures of this version cover. */
export const EVERY_LOAD = 'every load';
const memoryPath = (process: string) => `${process} RSS under ${EVERY_LOAD}`;

function runLine(report: Report): string {
  const { machine: host, settings } = report;
  const average = (values: number[]) => values.map((v) => v.toFixed(1)).join(' ');
  const shape = SHAPES[shapeOf(report)];
  return (
    `- **${titleOf(report)} shape** (${shape.what}): \`${shape.command}\`, ${report.startedAt}, ` +
    `${report.minutes.toFixed(1)} minutes on ${host.cpus} × ${host.model}, Node ${host.node} ` +
    `(load average ${average(host.loadAverage.start)} at the start, ${average(host.loadAverage.end)} at the end); ` +
    `median of ${settings.runs} per-run ratios, HTTP loads of ${settings.connections} connections for ` +
    `${settings.secondsPerLoad} s; ${settings.documentsPerCompany.toLocaleString('en')} documents in each of 2 companies.`
  );
}

function header(reports: Report[]): string[] {
  return [
    '# Benchmark results',
    '',
    ...reports.map(runLine),
    '',
    'Every figure is a ratio against a baseline measured in the same run and shape, back to back: the median of the ' +
      'per-run ratios. HTTP loads are autocannon over loopback, after a warm-up. A figure one shape did not measure ' +
      'shows "–".',
    '',
  ];
}

/** Product / baseline, ratio and met of one row in one shape. */
function rowCells(row: Row | undefined): string[] {
  if (!row) return [MISSING, MISSING, MISSING];
  return [
    `${number(row.product)} / ${number(row.baseline)}`,
    `${row.ratio.toFixed(2)}×`,
    row.reported ? 'reported' : mark(row.met),
  ];
}

function memoryCells(figure: MemoryFigure | undefined): string[] {
  if (!figure) return [MISSING, MISSING, MISSING];
  const processes = (figure.processes ?? 1) > 1 ? ` (highest of ${figure.processes})` : '';
  // Results taken before every load was sampled say which load they cover.
  const under = figure.under === EVERY_LOAD ? '' : ` (under ${figure.under})`;
  return [`${number(figure.peakMb)}${processes}${under}`, MISSING, mark(figure.met)];
}

function targets(reports: Report[]): string[] {
  const lines = [
    `| Path | Figure | Target | ${reports.map((report) => `${titleOf(report)}: product / baseline | Ratio | Met`).join(' | ')} |`,
    `|---|---|---|${reports.map(() => '---|---|---|').join('')}`,
  ];
  for (const path of union(
    reports,
    (report) => report.rows,
    (row) => row.path,
  )) {
    const first = reports.map((report) => rowOf(report, path)).find(Boolean)!;
    lines.push(
      `| ${path} | ${first.figure} (${first.unit}) against ${first.baselineName} | ${first.target} | ${reports.flatMap((report) => rowCells(rowOf(report, path))).join(' | ')} |`,
    );
  }
  for (const process of union(
    reports,
    (report) => report.memory,
    (figure) => figure.process,
  )) {
    const first = reports.map((report) => memoryOf(report, process)).find(Boolean)!;
    lines.push(
      `| ${memoryPath(process)} | peak RSS (MB) | < ${first.limitMb} MB | ${reports.flatMap((report) => memoryCells(memoryOf(report, process))).join(' | ')} |`,
    );
  }
  return [...lines, ''];
}

function latencies(reports: Report[]): string[] {
  const paths = union(
    reports,
    (report) => report.rows.filter((row) => row.latency || row.baselineLatency),
    (row) => row.path,
  );
  if (paths.length === 0) return [];
  const lines = [
    'Latency, p50 / p99 (ms):',
    '',
    `| Path | ${reports.map((report) => `${titleOf(report)}: product | baseline`).join(' | ')} |`,
    `|---|${reports.map(() => '---|---|').join('')}`,
  ];
  for (const path of paths)
    lines.push(
      `| ${path} | ${reports
        .flatMap((report) => {
          const row = rowOf(report, path);
          return [latency(row?.latency), latency(row?.baselineLatency)];
        })
        .join(' | ')} |`,
    );
  return [...lines, ''];
}

function checks(reports: Report[]): string[] {
  const checksOf = (report: Report) =>
    report.rows.flatMap((row) => (row.checks ?? []).map((check) => ({ key: `${row.path} | ${check.name}`, check })));
  const keys = union(reports, checksOf, (entry) => entry.key);
  if (keys.length === 0) return [];
  const lines = [
    'Checks beside the ratios:',
    '',
    `| Path | Check | ${reports.map((report) => `${titleOf(report)} | Met`).join(' | ')} |`,
    `|---|---|${reports.map(() => '---|---|').join('')}`,
  ];
  for (const key of keys)
    lines.push(
      `| ${key} | ${reports
        .flatMap((report) => {
          const check = checksOf(report).find((entry) => entry.key === key)?.check;
          return check ? [check.value, mark(check.met)] : [MISSING, MISSING];
        })
        .join(' | ')} |`,
    );
  return [...lines, ''];
}

/** The peak of each kind of process under each load, to show the limit holds under every one of them. */
function memoryByLoad(reports: Report[]): string[] {
  const measured = reports.flatMap((report) =>
    report.memory.filter((figure) => figure.loads).map((figure) => ({ report, figure })),
  );
  if (measured.length === 0) return [];
  const loads = [...new Set(measured.flatMap(({ figure }) => Object.keys(figure.loads!)))];
  return [
    'Peak RSS under each load (MB; in the production shape, the highest process of each kind):',
    '',
    `| Shape | Process | ${loads.join(' | ')} |`,
    `|---|---|${loads.map(() => '---|').join('')}`,
    ...measured.map(
      ({ report, figure }) =>
        `| ${titleOf(report)} | ${figure.process} | ${loads.map((load) => number(figure.loads![load] ?? Number.NaN)).join(' | ')} |`,
    ),
    '',
  ];
}

/** A subsection per shape that has something to show when there are several shapes, the lines alone when one. */
function perShape(reports: Report[], body: (report: Report) => string[]): string[] {
  if (reports.length === 1) return body(reports[0]!);
  return reports.flatMap((report) => {
    const lines = body(report);
    return lines.length ? [`### ${titleOf(report)} shape`, '', ...lines] : [];
  });
}

/** A bound's lines under its list item, one report line each (a bound kept as one line stays on the item's line). */
const boundLines = (bound: string) =>
  bound.includes('\n') ? bound.replace(/^|\n/g, '\n  ') : bound ? ` ${bound}` : '';

function missed(reports: Report[]): string[] {
  return [
    '## Missed targets: what bounds them',
    '',
    ...perShape(reports, (report) => {
      const rows = report.rows.filter((row) => !row.met);
      const memory = report.memory.filter((figure) => !figure.met);
      const reported = report.rows.filter((row) => row.reported);
      const lines: string[] = [];
      if (rows.length === 0 && memory.length === 0) lines.push('None.', '');
      for (const row of rows)
        lines.push(
          `- **${row.path}** (${row.ratio.toFixed(2)}×, target ${row.target}):${boundLines(row.bound ?? 'not analysed yet.')}`,
        );
      for (const figure of memory)
        lines.push(
          `- **${figure.process} RSS** (${number(figure.peakMb)} MB, limit ${figure.limitMb} MB):${boundLines(figure.bound)}`,
        );
      // Figures without a target say what they show all the same.
      for (const row of reported)
        lines.push(`- Reported, no target: **${row.path}** (${row.ratio.toFixed(2)}×):${boundLines(row.bound ?? '')}`);
      return [...lines, ''];
    }),
  ];
}

function notes(reports: Report[]): string[] {
  if (reports.every((report) => report.notes.length === 0)) return [];
  return [
    '## Notes',
    '',
    ...perShape(reports, (report) => (report.notes.length ? [...report.notes.map((note) => `- ${note}`), ''] : [])),
  ];
}

function queries(reports: Report[]): string[] {
  const requests = union(
    reports,
    (report) => Object.keys(report.queryCounts),
    (request) => request,
  );
  return [
    '## Queries per request',
    '',
    `| Request | ${reports.map((report) => `${titleOf(report)}: SQL statements`).join(' | ')} |`,
    `|---|${reports.map(() => '---|').join('')}`,
    ...requests.map(
      (request) =>
        `| ${request} | ${reports.map((report) => String(report.queryCounts[request] ?? MISSING)).join(' | ')} |`,
    ),
    '',
  ];
}

function plans(reports: Report[]): string[] {
  // Under a subsection per shape when there are several.
  const heading = reports.length > 1 ? '####' : '###';
  return [
    '## Query plans of the payments filters',
    '',
    'EXPLAIN ANALYZE of the statements the product sends for each filter (Colombian company). A sequential scan of ' +
      'payments, payables, documents or their tag links counts as a filter not served by an index.',
    '',
    ...perShape(reports, (report) =>
      report.paymentPlans.flatMap((plan) => [
        `${heading} ${plan.filter}: ${plan.indexed ? 'served by indexes' : '**sequential scan**'}`,
        '',
        '```sql',
        plan.statement,
        '```',
        '',
        '```',
        plan.plan,
        '```',
        '',
      ]),
    ),
  ];
}

function runs(reports: Report[]): string[] {
  const lines = [
    '## Runs',
    '',
    '| Shape | Path | Product per run | Baseline per run | Ratio per run |',
    '|---|---|---|---|---|',
  ];
  for (const report of reports)
    for (const row of report.rows)
      lines.push(
        `| ${titleOf(report)} | ${row.path} | ${row.runs.product.map(number).join(', ')} | ` +
          `${row.runs.baseline.map(number).join(', ')} | ${row.runs.ratios.map((ratio) => ratio.toFixed(2)).join(', ')} |`,
      );
  lines.push('');
  for (const report of reports)
    lines.push(
      `Data set (${titleOf(report).toLowerCase()} shape): ${Object.entries(report.dataSet.rows)
        .map(([table, count]) => `${count.toLocaleString('en')} ${table}`)
        .join(', ')}; seeded in ${report.dataSet.seedSeconds.toFixed(0)} s.`,
      '',
    );
  return lines;
}

function markdown(reports: Report[]): string {
  const lines = [
    ...header(reports),
    ...targets(reports),
    ...latencies(reports),
    ...checks(reports),
    ...memoryByLoad(reports),
    ...missed(reports),
    ...notes(reports),
    ...queries(reports),
    ...plans(reports),
    ...runs(reports),
  ];
  return `${lines.join('\n')}\n`;
}

/** The last results of every shape that has any, in the order of the shapes. */
function savedReports(): Report[] {
  return Object.values(DATA_FILES)
    .map((file) => `${RESULTS}${file}`)
    .filter((path) => existsSync(path))
    .map((path) => JSON.parse(readFileSync(path, 'utf8')) as Report);
}

/** Writes this shape's data, then the markdown of every shape's last results. */
export function writeReport(report: Report): { markdown: string; json: string } {
  mkdirSync(RESULTS, { recursive: true });
  const paths = { markdown: `${RESULTS}latest.md`, json: `${RESULTS}${DATA_FILES[shapeOf(report)]}` };
  writeFileSync(paths.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(paths.markdown, markdown(savedReports()));
  return paths;
}
