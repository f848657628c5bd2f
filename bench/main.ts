// `npm run bench`: starts the product, seeds a realistic data set, measures each path against a baseline in the same
// run, and writes the results of its shape (bench/results/latest.json for dev, production.json for production) and
// bench/results/latest.md, which sets the last results of both shapes side by side.
//
// BENCH_SHAPE picks the shape: `dev` (the default) runs the embedded default (embedded PostgreSQL, the Temporal dev
// server in memory, the simulators on loopback) with the API and the worker as production processes; `production`
// runs the production-shape suite's deployment (test/harness/production-stack.ts: the Temporal server on PostgreSQL,
// two APIs and two workers, the outside systems in a network namespace; needs root, as `npm run test:production`).
//
//   npm run bench                            # dev shape
//   BENCH_SHAPE=production npm run bench     # production shape
//
// BENCH_RUNS, BENCH_SECONDS, BENCH_CONNECTIONS and BENCH_DOCUMENTS change the run; BENCH_ONLY=reads,commands,events,
// import,webhooks,recommendations,accounting,workers runs only those scenarios (BENCH_DECIDED_STEPS and
// BENCH_STEP_OPENINGS size recommendations, BENCH_VOUCHERS and BENCH_PROPOSALS accounting; `workers`, one worker
// against two, runs in the production shape only, over BENCH_WORKER_FILES files); BENCH_PROFILE=1 writes CPU
// profiles of the APIs, the workers and the operator CLI's imports; BENCH_KEEP=1 keeps the temporary directory (data,
// logs, profiles).
import { companyEm } from '../db/orm.ts';
import { registerSigningCertificate } from '../services/dian/certificates.ts';
import { issueSigningCertificate } from '../test/harness/signing-certificates.ts';
import { rmSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { tempDir } from '../platform/temp-dir.ts';
import { freePort } from '../platform/ports.ts';
import { DEFAULT_TASK_QUEUE } from '../temporal/config.ts';
import { TEMPORAL_SERVER_VERSION } from '../test/harness/temporal-server.ts';
import { rawTemporalClient } from './baselines/raw-temporal.ts';
import { boundText, type BenchContext, type Row } from './context.ts';
import { spreadLoad } from './load.ts';
import { countAsOne, MemorySampler } from './memory.ts';
import { EVERY_LOAD, machine, writeReport, type MemoryFigure } from './report.ts';
import { accountingScenario } from './scenarios/accounting.ts';
import { commandScenarios } from './scenarios/commands.ts';
import { eventScenario } from './scenarios/events.ts';
import { importScenarios, webhookScenarios } from './scenarios/ingestion.ts';
import { readScenarios } from './scenarios/reads.ts';
import { recommendationScenario } from './scenarios/recommendations.ts';
import { workerScenario } from './scenarios/workers.ts';
import { seed } from './seed.ts';
import { benchShape, spawnProcess, startBenchStack, type BenchProcess, type BenchStack } from './stack.ts';

const settings = {
  shape: benchShape(process.env.BENCH_SHAPE),
  runs: Number(process.env.BENCH_RUNS ?? 3),
  seconds: Number(process.env.BENCH_SECONDS ?? 8),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 10),
  documentsPerCompany: Number(process.env.BENCH_DOCUMENTS ?? 20_000),
  only: new Set(
    (process.env.BENCH_ONLY ?? 'reads,commands,events,import,webhooks,recommendations,accounting,workers').split(','),
  ),
};

const RAW_HTTP_NOTE =
  'Raw HTTP+SQL authenticates the API key like the product (one query and a SHA-256 comparison) and lets ' +
  "PostgreSQL build the nested JSON; its answers match the product's (same totals and order; sizes above).";
const MACHINE_NOTE =
  'The machine is shared: the load average in the header says how much. Each ratio pairs a product run with the baseline run next to it; the runs table at the end shows how far they spread.';

/** How each shape's figures were taken, for whoever reads them. */
function notesOf(stack: BenchStack): string[] {
  if (stack.shape === 'dev')
    return [
      'The API runs with RATE_LIMIT_PER_MINUTE=0: all load comes from two keys on loopback, and the per-key limit would otherwise measure itself.',
      'The worker runs with NODE_ENV=development: production refuses webhook receivers on loopback, where the simulated ERP listens; no other worker setting depends on it.',
      RAW_HTTP_NOTE,
      'The Temporal dev server runs in memory, as in the test suite: with the SQLite file of the embedded default, every Temporal figure, product and baseline alike, measured the disk.',
      MACHINE_NOTE,
    ];
  return [
    'The product runs as `npm run test:production` deploys it (test/harness/production-stack.ts): PostgreSQL ' +
      `reached with the product's own role; the Temporal server ${TEMPORAL_SERVER_VERSION} on PostgreSQL, set up by ` +
      "the deploy scripts; two APIs and two workers with NODE_ENV=production and the operator's defaults (no short " +
      'retry or poll pacing, default pool sizes); DIAN, the object store and the ERP receiver on a non-loopback ' +
      'address of a network namespace, which OUTBOUND_ALLOWED_NETWORKS allowlists: webhooks go out under the ' +
      'production outbound policy, over https to a receiver whose CA NODE_EXTRA_CA_CERTS trusts.',
    'The APIs run with RATE_LIMIT_PER_MINUTE=0: all load comes from two keys on loopback, and the per-key limit would otherwise measure itself.',
    "HTTP loads split autocannon's connections between the two APIs, taking them in turn, as a load balancer " +
      'would; the CPU per request adds up both API processes. Requests taken one at a time (step decisions, ' +
      'approvals, the events batch) go to the first API. Each baseline is one process (raw HTTP+SQL; a worker of ' +
      'trivial workflows on the same Temporal server).',
    "Memory is sampled from every API and worker process every 200 ms: each kind's figure is its highest process, under each load of the bench.",
    RAW_HTTP_NOTE,
    MACHINE_NOTE,
  ];
}

const startedAt = new Date();
const loadAtStart = loadavg();
const elapsed = () => `${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(4)} s`;
const log = (line: string) => process.stdout.write(`[${elapsed()}] ${line}\n`);

const dir = tempDir('ap-bench-');
const stack = await startBenchStack(settings.shape, {
  dir,
  log,
  nodeFlags: process.env.BENCH_PROFILE === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, 'profiles')}`] : [],
});
const baselines: BenchProcess[] = [];
let failed = false;
try {
  log(`seeding ${settings.documentsPerCompany.toLocaleString('en')} documents in each of 2 companies`);
  const seeded = await seed(stack.orm, stack.databaseUrl, settings.documentsPerCompany);
  // The events benchmark signs the Colombian company's events with its certificate.
  for (const company of seeded.companies.filter((candidate) => candidate.country === 'COL'))
    await registerSigningCertificate(companyEm(stack.orm, company.id), stack.secrets, {
      companyId: company.id,
      pkcs12: issueSigningCertificate(stack.signingAuthority, {
        nit: '900111222',
        name: 'Ferretería El Tornillo S.A.S.',
        password: 'bench',
      }),
      password: 'bench',
      now: new Date(),
    });
  log(
    `  seeded in ${seeded.seconds.toFixed(0)} s: ${Object.entries(seeded.rows)
      .map(([table, count]) => `${count} ${table}`)
      .join(', ')}`,
  );

  const rawPort = await freePort();
  baselines.push(
    await spawnProcess(
      dir,
      'raw-http-sql',
      ['bench/baselines/raw-http-sql.ts'],
      { ...process.env, DATABASE_URL: stack.databaseUrl, PORT: String(rawPort) },
      (output) => output.includes('listening'),
    ),
  );
  baselines.push(
    await spawnProcess(
      dir,
      'raw-temporal-worker',
      ['bench/baselines/raw-temporal.ts'],
      { ...process.env, TEMPORAL_ADDRESS: stack.temporalAddress },
      (output) => output.includes('raw worker running'),
    ),
  );
  const productConnection = await Connection.connect({ address: stack.temporalAddress });
  // Scenarios name the first API; in the production shape, loads and CPU counts take every API.
  if (stack.apiUrls.length > 1) {
    spreadLoad(stack.apiUrl, stack.apiUrls);
    countAsOne(stack.api.pid, () => stack.processIds().api);
  }
  const memory = new MemorySampler(() => stack.processIds());
  memory.start();
  const context: BenchContext = {
    stack,
    seed: seeded,
    product: { client: new Client({ connection: productConnection }), taskQueue: DEFAULT_TASK_QUEUE },
    raw: {
      httpUrl: `http://127.0.0.1:${rawPort}`,
      httpPid: baselines[0]!.pid,
      temporal: await rawTemporalClient(stack.temporalAddress),
    },
    memory,
    runs: settings.runs,
    seconds: settings.seconds,
    connections: settings.connections,
    log,
  };

  // Colombian invoices, split so that no scenario touches another's documents.
  const colombian = seeded.companies
    .find((company) => company.country === 'COL')!
    .documents.filter((document) => document.type === 'invoice');
  const pending = colombian.filter((document) => document.approvalStatus === 'pending');
  const forCommands = pending.slice(0, 2 * (5 + settings.runs * 40));
  const taken = new Set(forCommands.map((document) => document.id));
  const rest = colombian.filter((document) => !taken.has(document.id));
  // The events batch takes the median of at least 5 runs (bench/scenarios/events.ts), each of 200 documents.
  const forEvents = rest.slice(0, 50 + Math.max(5, settings.runs) * 200);
  const forWebhooks = rest.slice(forEvents.length, forEvents.length + 100 + settings.runs * 400);

  /** Whether a scenario runs, its load named for the memory figures. */
  const runs = (load: string) => {
    if (!settings.only.has(load)) return false;
    memory.startLoad(load);
    return true;
  };
  let reads: Awaited<ReturnType<typeof readScenarios>> = { rows: [], plans: [], queryCounts: {} };
  if (runs('reads')) reads = await readScenarios(context);
  const rows: Row[] = [...reads.rows];
  if (runs('commands')) {
    log('POST /workflow-steps/{ref}/complete and POST /documents/{ref}/approve');
    rows.push(...(await commandScenarios(context, forCommands)));
  }
  if (runs('events')) {
    log('POST /events/batch (200 CUFEs × 4 types)');
    rows.push(...(await eventScenario(context, forEvents)));
  }
  if (runs('import')) rows.push(...(await importScenarios(context)));
  if (runs('webhooks')) rows.push(...(await webhookScenarios(context, forWebhooks)));
  if (runs('recommendations')) {
    context.log('opening a step with the recommendation agent on and off');
    rows.push(...(await recommendationScenario(context)));
  }
  if (runs('accounting')) {
    context.log("proposing a voucher with the company's history and with none");
    rows.push(...(await accountingScenario(context)));
  }
  // After the import: both import into the Mexican company, whose one subscription the import scenario adds.
  if (stack.shape === 'production' && runs('workers')) rows.push(...(await workerScenario(context)));
  else if (process.env.BENCH_ONLY?.split(',').includes('workers'))
    log('one worker against two: the dev shape has one worker; BENCH_SHAPE=production runs it');
  memory.stop();

  const processes = stack.processIds();
  const measuredUnderLoad = (kind: 'api' | 'worker') => ({
    peakMb: memory.peakUnderLoad(kind),
    under: EVERY_LOAD,
    processes: processes[kind].length,
    loads: memory.loads(kind),
  });
  const memoryFigures = (
    [
      {
        process: 'api',
        ...measuredUnderLoad('api'),
        limitMb: 250,
        bound: boundText([
          `${memory.atRest('api').toFixed(0)} MB at rest (the ORM's metadata, the Temporal client, the zod schemas, ` +
            'type stripping).',
          'Each response is allocated several times over and little of it lives on: 16 MB semi-spaces bound the young',
          'generation, and a 256 MB old space makes V8 grow the heap by small steps (api/node-flags.ts).',
          'See docs/decisions.md, "Memory limits of the API and the worker".',
        ]),
      },
      {
        process: 'worker',
        ...measuredUnderLoad('worker'),
        limitMb: 400,
        bound: boundText([
          `${memory.atRest('worker').toFixed(0)} MB at rest (the SDK's core and the workflow sandbox). Bursts of ` +
            'workflows and activities allocate fast:',
          "a 256 MB old space and 8 MB semi-spaces make V8 collect before the heap and the SDK's native buffers grow,",
          "and two malloc arenas keep the C library from holding what the SDK core's threads freed (worker/node-flags.ts).",
          'See docs/decisions.md, "Memory limits of the API and the worker".',
        ]),
      },
    ] as const
  )
    .filter((figure) => Number.isFinite(figure.peakMb))
    .map((figure): MemoryFigure => ({ ...figure, met: figure.peakMb < figure.limitMb }));
  const paths = writeReport({
    shape: stack.shape,
    startedAt: startedAt.toISOString(),
    minutes: (Date.now() - startedAt.getTime()) / 60_000,
    machine: machine(loadAtStart),
    settings: {
      runs: settings.runs,
      secondsPerLoad: settings.seconds,
      connections: settings.connections,
      documentsPerCompany: settings.documentsPerCompany,
    },
    dataSet: { rows: seeded.rows, seedSeconds: seeded.seconds },
    rows,
    memory: memoryFigures,
    queryCounts: reads.queryCounts,
    paymentPlans: reads.plans,
    notes: notesOf(stack),
  });
  await productConnection.close();
  await context.raw.temporal.connection.close();
  for (const row of rows)
    log(
      `${row.reported ? 'report' : row.met ? 'met   ' : 'MISSED'} ${row.path}: ${row.ratio.toFixed(2)}× (target ${row.target})`,
    );
  for (const figure of memoryFigures)
    log(
      `${figure.met ? 'met   ' : 'MISSED'} ${figure.process} RSS ${figure.peakMb.toFixed(0)} MB (limit ${figure.limitMb} MB; ${Object.entries(
        figure.loads ?? {},
      )
        .map(([load, peak]) => `${load} ${peak.toFixed(0)}`)
        .join(', ')})`,
    );
  log(`wrote ${paths.markdown} and ${paths.json}`);
} catch (error) {
  failed = true;
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  log(`logs kept in ${join(dir, 'logs')}`);
} finally {
  for (const baseline of baselines) await baseline.stop();
  await stack.stop();
  if (!failed && process.env.BENCH_KEEP !== '1') rmSync(dir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
