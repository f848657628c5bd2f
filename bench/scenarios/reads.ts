// The read paths under load: document detail, the expanded document list and the filtered payments list, each
// against the raw HTTP+SQL baseline answering the same requests, run after run.
import pg from 'pg';
import { row, type BenchContext, type Bound, type Row } from '../context.ts';
import { load, type LoadRequest, type LoadResult } from '../load.ts';
import { cpuMs } from '../memory.ts';
import { observedApi } from '../query-log.ts';
import type { SeededCompany } from '../seed.ts';
import { median } from '../stats.ts';

const PREFIX = '/public/api/v1';
const LIST_FIELDS = 'beneficiaries,payables,payments,notes,logs';
/** Tables too large to be scanned whole by a filtered query of one company. */
const LARGE_TABLES = /Seq Scan on (payments|payables|documents|payment_tags|document_tags|line_items)\b/;

export interface PaymentPlan {
  filter: string;
  statement: string;
  plan: string;
  indexed: boolean;
}

export interface ReadResults {
  rows: Row[];
  plans: PaymentPlan[];
  queryCounts: Record<string, number>;
}

/** Documents of both companies, spread over their whole history. */
function detailRequests(companies: SeededCompany[]): LoadRequest[] {
  return companies.flatMap((company) =>
    Array.from({ length: 100 }, (_, n) => company.documents[Math.floor((n * company.documents.length) / 100)]!).map(
      (document) => ({ path: `${PREFIX}/documents/${document.id}`, headers: { 'api-key': company.apiKey } }),
    ),
  );
}

function listRequests(companies: SeededCompany[], pageSize = 50): LoadRequest[] {
  return companies.flatMap((company) =>
    Array.from({ length: 10 }, (_, n) => ({
      path: `${PREFIX}/documents?page_size=${pageSize}&page=${n + 1}&fields=${LIST_FIELDS}`,
      headers: { 'api-key': company.apiKey },
    })),
  );
}

/** Every filter and sort of GET /payments the spec names, with values that match a realistic share of rows. */
export function paymentFilters(company: SeededCompany): Record<string, string> {
  const invoice = company.documents.find((document) => document.type === 'invoice')!;
  const month = new Date(Date.now() - 120 * 86_400_000).toISOString().slice(0, 10);
  const monthEnd = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10);
  return {
    status: 'status=processed&sort_by=paid_at&sort_order=desc',
    beneficiary: `beneficiary_reference=${company.beneficiaryIds[3]}`,
    'due date range': `expiration_date_from=${month}&expiration_date_to=${monthEnd}&sort_by=expiration_date&sort_order=asc`,
    tags: 'tags=urgente&sort_by=amount&sort_order=desc',
    'method and status': 'payment_method=cash,card&status=pending,in_process',
    batch: `batch_reference=${company.batchIds[10]}`,
    document: `document_reference=${invoice.id}`,
    'search: supplier': `search=${company.country === 'COL' ? 'Andina' : 'Norte'}`,
    'search: document number': `search=${company.country === 'COL' ? 'SETP99001234' : 'F-1012'}`,
    'sort: beneficiary': 'sort_by=beneficiary&sort_order=asc&page=3',
  };
}

function paymentRequests(companies: SeededCompany[]): LoadRequest[] {
  return companies.flatMap((company) =>
    Object.values(paymentFilters(company)).map((query) => ({
      path: `${PREFIX}/payments?${query}&page_size=50`,
      headers: { 'api-key': company.apiKey },
    })),
  );
}

interface Measured extends LoadResult {
  /** CPU the server process spent per answered request, in milliseconds. */
  cpuMsPerRequest: number;
}

/** A load run against one server, with the CPU its process spent. */
async function measured(
  url: string,
  pid: number,
  requests: LoadRequest[],
  settings: { seconds: number; connections: number },
): Promise<Measured> {
  const before = cpuMs(pid);
  const result = await load(url, requests, settings);
  return { ...result, cpuMsPerRequest: (cpuMs(pid) - before) / (result.requestsPerSecond * settings.seconds) };
}

/** Product and baseline back to back, `runs` times, the order alternating; a warm-up of each first. */
async function compare(
  context: BenchContext,
  requests: LoadRequest[],
): Promise<{ product: Measured[]; baseline: Measured[] }> {
  const settings = { seconds: context.seconds, connections: context.connections };
  const product: Measured[] = [];
  const baseline: Measured[] = [];
  await load(context.stack.apiUrl, requests, { ...settings, seconds: 3 });
  await load(context.raw.httpUrl, requests, { ...settings, seconds: 3 });
  for (let run = 0; run < context.runs; run++) {
    const pair = [
      () =>
        measured(context.raw.httpUrl, context.raw.httpPid, requests, settings).then((result) => baseline.push(result)),
      () =>
        measured(context.stack.apiUrl, context.stack.api.pid, requests, settings).then((result) =>
          product.push(result),
        ),
    ];
    for (const measure of run % 2 ? pair.reverse() : pair) await measure();
  }
  for (const result of [...product, ...baseline]) {
    if (result.non2xx || result.errors)
      throw new Error(`a load run answered ${result.non2xx} non-2xx responses and ${result.errors} errors`);
  }
  context.log(
    `  product ${product.map((r) => r.requestsPerSecond.toFixed(0)).join(' / ')} req/s; baseline ${baseline.map((r) => r.requestsPerSecond.toFixed(0)).join(' / ')} req/s`,
  );
  return { product, baseline };
}

const throughput = (results: LoadResult[]) => results.map((result) => result.requestsPerSecond);
const latencies = (results: LoadResult[]) => results.map((result) => ({ p50: result.p50, p99: result.p99 }));
const bytes = (results: LoadResult[]) =>
  Math.round(results.reduce((sum, result) => sum + result.bytesPerResponse, 0) / results.length);
const cpu = (results: Measured[]) => median(results.map((result) => result.cpuMsPerRequest));
/** What a request costs each side: shown beside the ratio, and the figures of its bound. */
function costs(pair: { product: Measured[]; baseline: Measured[] }, statements: number, baselineStatements: number) {
  const text =
    `${cpu(pair.product).toFixed(1)} ms of CPU and ${statements} SQL statements per request in the API process, ` +
    `against ${cpu(pair.baseline).toFixed(1)} ms and ${baselineStatements} for the baseline`;
  return {
    check: {
      name: 'CPU per request in the server process (product / baseline)',
      value: `${cpu(pair.product).toFixed(1)} ms / ${cpu(pair.baseline).toFixed(1)} ms`,
      met: true,
    },
    text,
  };
}

/** EXPLAIN ANALYZE of the statements the product sends for each payments filter (the COL company's). */
async function explainPayments(
  context: BenchContext,
  company: SeededCompany,
  statementsOf: (path: string) => Promise<string[]>,
): Promise<PaymentPlan[]> {
  const client = new pg.Client({ connectionString: context.stack.databaseUrl });
  await client.connect();
  try {
    const plans: PaymentPlan[] = [];
    for (const [filter, query] of Object.entries(paymentFilters(company))) {
      const statements = (await statementsOf(`${PREFIX}/payments?${query}&page_size=50`)).filter(
        (statement) => /^select\b/i.test(statement) && /"payments"|from "payments"/i.test(statement),
      );
      for (const statement of statements) {
        const { rows } = await client.query<{ 'QUERY PLAN': string }>(
          `explain (analyze, costs off, summary off) ${statement}`,
        );
        const plan = rows.map((line) => line['QUERY PLAN']).join('\n');
        plans.push({ filter, statement, plan, indexed: !LARGE_TABLES.test(plan) });
      }
    }
    return plans;
  } finally {
    await client.end();
  }
}

export async function readScenarios(context: BenchContext): Promise<ReadResults> {
  const companies = context.seed.companies;
  const observed = await observedApi(context.stack);
  const queryCounts: Record<string, number> = {};
  let plans: PaymentPlan[];
  try {
    const [company] = companies;
    const count = async (path: string) => {
      const { status, statements } = await observed.request(path, company!.apiKey);
      if (status !== 200) throw new Error(`${path} answered ${status}`);
      return statements.length;
    };
    await count(detailRequests([company!])[0]!.path); // the ORM's first query checks the database: not the request's
    queryCounts['GET /documents/{ref}'] = await count(detailRequests([company!])[0]!.path);
    for (const size of [10, 50, 100])
      queryCounts[`GET /documents?page_size=${size}&fields=${LIST_FIELDS}`] = await count(
        listRequests([company!], size)[0]!.path,
      );
    for (const [filter, query] of Object.entries(paymentFilters(company!)))
      queryCounts[`GET /payments (${filter})`] = await count(`${PREFIX}/payments?${query}&page_size=50`);
    plans = await explainPayments(
      context,
      company!,
      async (path) => (await observed.request(path, company!.apiKey)).statements,
    );
  } finally {
    await observed.close();
  }

  context.memory.enter('http');
  context.log('GET /documents/{ref}');
  const detail = await compare(context, detailRequests(companies));
  context.log('GET /documents?page_size=50&fields=…');
  const list = await compare(context, listRequests(companies));
  context.log('GET /payments with filters and sort');
  const payments = await compare(context, paymentRequests(companies));

  const listCounts = [10, 50, 100].map(
    (size) => queryCounts[`GET /documents?page_size=${size}&fields=${LIST_FIELDS}`]!,
  );
  const paymentCounts = Object.entries(queryCounts)
    .filter(([request]) => request.startsWith('GET /payments'))
    .map(([, count]) => count);
  // The baseline answers with the key lookup plus one statement (detail) or two (lists: the count and the page).
  const detailCost = costs(detail, queryCounts['GET /documents/{ref}']!, 2);
  const listCost = costs(list, listCounts[1]!, 3);
  const paymentCost = costs(payments, median(paymentCounts), 3);
  const sqlBound = (cost: { text: string }, what: string): Bound => [
    `${cost.text}.`,
    `The API reads ${what},`,
    "PostgreSQL nesting the rows as JSON in one statement, as the baseline does. What remains is the API's own work",
    'per request in Node (routing, authentication, validation, serialisation).',
    'See docs/decisions.md, "Responses rendered by PostgreSQL".',
  ];
  const p99OverP50 = (results: LoadResult[]) =>
    results.map((result) => result.p99 / result.p50).sort((a, b) => a - b)[Math.floor(results.length / 2)]!;
  const rows = [
    row({
      path: 'GET /documents/{ref} (full detail)',
      figure: 'throughput',
      unit: 'req/s',
      baselineName: 'raw HTTP+SQL',
      product: throughput(detail.product),
      baseline: throughput(detail.baseline),
      kind: 'min',
      target: 0.6,
      latency: latencies(detail.product),
      baselineLatency: latencies(detail.baseline),
      checks: [
        // The baseline's own tail, measured in the same runs, says how much of the product's is the machine's.
        {
          name: 'p99 < 4× p50',
          value: `${p99OverP50(detail.product).toFixed(1)}× (raw HTTP+SQL: ${p99OverP50(detail.baseline).toFixed(1)}×)`,
          met: p99OverP50(detail.product) < 4,
        },
        {
          name: 'bytes per response (product / baseline)',
          value: `${bytes(detail.product)} / ${bytes(detail.baseline)}`,
          met: true,
        },
        detailCost.check,
      ],
      bound: sqlBound(detailCost, 'the document and each of its ten kinds of relations'),
    }),
    row({
      path: `GET /documents?page_size=50&fields=${LIST_FIELDS}`,
      figure: 'throughput',
      unit: 'req/s',
      baselineName: 'raw HTTP+SQL',
      product: throughput(list.product),
      baseline: throughput(list.baseline),
      kind: 'min',
      target: 0.5,
      latency: latencies(list.product),
      baselineLatency: latencies(list.baseline),
      checks: [
        {
          name: 'queries per request at page_size 10 / 50 / 100',
          value: listCounts.join(' / '),
          met: new Set(listCounts).size === 1,
        },
        {
          name: 'bytes per response (product / baseline)',
          value: `${bytes(list.product)} / ${bytes(list.baseline)}`,
          met: true,
        },
        listCost.check,
      ],
      bound: sqlBound(listCost, 'the page of ids and its count, then the 50 documents with their five expansions'),
    }),
    row({
      path: 'GET /payments with filters and sort',
      figure: 'throughput',
      unit: 'req/s',
      baselineName: 'raw HTTP+SQL',
      product: throughput(payments.product),
      baseline: throughput(payments.baseline),
      kind: 'min',
      target: 0.5,
      latency: latencies(payments.product),
      baselineLatency: latencies(payments.baseline),
      checks: [
        {
          name: 'every filter served by an index',
          value: `${plans.filter((plan) => plan.indexed).length} of ${plans.length} statements`,
          met: plans.every((plan) => plan.indexed),
        },
        {
          name: 'bytes per response (product / baseline)',
          value: `${bytes(payments.product)} / ${bytes(payments.baseline)}`,
          met: true,
        },
        paymentCost.check,
      ],
      bound: sqlBound(
        paymentCost,
        'the page of ids and its count, then the payments with their payables, documents, beneficiaries, contacts, batches and tags',
      ),
    }),
  ];
  return { rows, plans, queryCounts };
}
