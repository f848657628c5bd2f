// Ingestion and webhooks: importing 1,000 CFDI with the operator CLI until their `document.created` webhooks are
// delivered, against starting and completing as many trivial workflows (one workflow per document is the floor);
// and a burst of webhook deliveries against the same floor.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { recordEvent } from '../../services/webhooks/events.ts';
import { retryScheduleFromEnv, startDeliveries } from '../../temporal/webhooks.ts';
import { documentCreatedPayload } from '../../services/webhooks/payloads.ts';
import { addSubscription } from '../../services/webhooks/subscriptions.ts';
import { Company } from '../../db/companies/company.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { startDocumentLifecycle } from '../../temporal/documents.ts';
import { newDocumentPosition } from '../../services/documents/lifecycle.ts';
import type { DeliveryToStart } from '../../db/webhooks/webhook-delivery.repository.ts';
import { rawInsert, type XmlFile } from '../baselines/raw-insert.ts';
import { startAndComplete } from '../baselines/raw-temporal.ts';
import { row, type BenchContext, type Row } from '../context.ts';
import { CFDI_IMPORT_FILES, cfdiVariant, readFixture } from '../fixtures.ts';
import type { SeededCompany, SeededDocument } from '../seed.ts';
import { backToBack, eachWithConcurrency, median, settle, startAndAwaitAll, timed, until } from '../stats.ts';

const IMPORT_FILES = 1_000;
const DELIVERIES = 400;
const WARM_UP_DELIVERIES = 100;
const START_CONCURRENCY = 32;
const LIFECYCLES_ALONE = 500;

/** `count` distinct CFDI invoices built from the fixtures: new stamp UUIDs and folios. */
export function cfdiFiles(count: number, folioBase: number): XmlFile[] {
  const sources = CFDI_IMPORT_FILES.map((file) => readFixture(file));
  return Array.from({ length: count }, (_, n) => ({
    name: `cfdi-${folioBase + n}.xml`,
    xml: cfdiVariant(sources[n % sources.length]!, randomUUID(), folioBase + n),
  }));
}

/**
 * Subscribes the company to `document.created` at the stack's ERP receiver, once: an import waits for each document's
 * delivery, and a second subscription would double them.
 */
export async function subscribe(context: BenchContext, company: SeededCompany): Promise<void> {
  const em = companyEm(context.stack.orm, company.id);
  const [existing] = await em.execute<{ count: number }[]>(
    `select count(*)::int as count from webhook_subscriptions where company_id = ? and event = 'document.created' and is_active`,
    [company.id],
  );
  if (existing!.count > 0) return;
  const entity = await em.findOneOrFail(Company, { id: company.id }, { filters: false });
  await addSubscription(em, context.stack.secrets, {
    company: entity,
    event: 'document.created',
    url: `${context.stack.erp.receiver.url}/webhooks`,
    secret: context.stack.erp.secret,
    outbound: context.stack.erp.outbound,
  });
  await em.flush();
}

async function deliveredCount(context: BenchContext, column: 'subject_id' | 'id', ids: string[]): Promise<number> {
  const rows = await context.stack.orm.em
    .getConnection()
    .execute<{ delivered: string }[]>(
      `select count(*) as delivered from webhook_deliveries where ${column} in (?) and status = 'delivered'`,
      [ids],
    );
  return Number(rows[0]!.delivered);
}

/** Milliseconds for the operator CLI to load and exit with nothing to do (its usage text). */
async function cliStartup(context: BenchContext): Promise<number> {
  return timed(
    () =>
      new Promise<void>((resolve, reject) => {
        const child = spawn(process.execPath, ['cli/main.ts', '--help'], { env: context.stack.env, stdio: 'ignore' });
        child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cli --help exited ${code}`))));
      }),
  );
}

/** With BENCH_PROFILE=1, the CLI writes its CPU profile beside the API's and the worker's. */
const cliProfile = (context: BenchContext) =>
  process.env.BENCH_PROFILE === '1'
    ? ['--cpu-prof', `--cpu-prof-dir=${join(context.stack.dir, 'profiles', 'cli')}`]
    : [];

/**
 * Runs `ops documents import` over the files, then waits for every new document's webhook and the end of its
 * lifecycle (as the floor waits for its workflows' results); milliseconds. `cliTimes` collects how long the CLI
 * process alone ran.
 */
export async function importWithCli(
  context: BenchContext,
  company: SeededCompany,
  directory: string,
  files: XmlFile[],
  cliTimes: number[] = [],
): Promise<number> {
  mkdirSync(directory, { recursive: true });
  const paths = files.map((file) => join(directory, file.name));
  files.forEach((file, index) => writeFileSync(paths[index]!, file.xml));
  return timed(async () => {
    const started = performance.now();
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [...cliProfile(context), 'cli/main.ts', 'documents', 'import', '--company', company.id, ...paths],
        { env: context.stack.env, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.once('exit', (code) =>
        code === 0 ? resolve(stdout) : reject(new Error(`documents import exited ${code}: ${stderr.slice(-1000)}`)),
      );
    });
    cliTimes.push(performance.now() - started);
    const { documents, errors } = JSON.parse(output) as {
      documents: { reference: string; created: boolean }[];
      errors: unknown[];
    };
    if (errors.length || documents.some((document) => !document.created))
      throw new Error(`the import refused ${errors.length} files: ${JSON.stringify(errors[0])}`);
    const references = documents.map((document) => document.reference);
    await Promise.all([
      until(
        async () => (await deliveredCount(context, 'subject_id', references)) === references.length,
        300_000,
        'document.created deliveries of the import',
        100,
      ),
      ...references.map((reference) =>
        context.raw.temporal.workflow.getHandle(workflowIds.document(reference)).result(),
      ),
    ]);
  });
}

/**
 * Milliseconds to start `count` document lifecycles as the import starts them (search attributes and where the flow
 * stands, here a flow with nothing to wait on) and see every one end: the import's workflow without the document.
 */
async function lifecyclesAlone(context: BenchContext, company: SeededCompany, count: number): Promise<number> {
  return startAndAwaitAll(count, START_CONCURRENCY, async () => {
    const documentId = randomUUID();
    const subject = {
      companyId: company.id,
      documentId,
      fiscalReference: documentId,
      documentNumber: 'F-1',
      approvalStatus: 'pending',
      type: 'invoice',
      supplierName: null,
      amountCents: 0n,
      currency: 'COP',
    };
    await startDocumentLifecycle(context.product, subject, newDocumentPosition([]));
    return context.product.client.workflow.getHandle(workflowIds.document(documentId));
  });
}

/** How many workflows of each type the product started since `since`: the import's cost in processes. */
async function workflowsStarted(context: BenchContext, since: Date) {
  const count = async (type: string) =>
    (await context.raw.temporal.workflow.count(`WorkflowType = '${type}' AND StartTime >= '${since.toISOString()}'`))
      .count;
  return {
    lifecycles: await count('documentLifecycle'),
    deliveries: await count('webhookDelivery'),
    queues: await count('webhookDeliveryQueue'),
  };
}

async function importScenario(context: BenchContext): Promise<Row> {
  const company = context.seed.companies.find((candidate) => candidate.country === 'MEX')!;
  await subscribe(context, company);
  const product: number[] = [];
  const floor: number[] = [];
  const cliTimes: number[] = [];
  const rate = (milliseconds: number, count: number) => count / (milliseconds / 1000);
  await importWithCli(context, company, join(context.stack.dir, 'import', 'warm-up'), cfdiFiles(100, 900_000));
  await startAndComplete(context.raw.temporal, `bench-raw/import-floor/warm-up/${Date.now()}`, 100, START_CONCURRENCY);
  const since = new Date();
  for (let run = 0; run < context.runs; run++) {
    await backToBack(
      run,
      async () =>
        void floor.push(
          rate(
            await startAndComplete(
              context.raw.temporal,
              `bench-raw/import-floor/${run}/${Date.now()}`,
              IMPORT_FILES,
              START_CONCURRENCY,
            ),
            IMPORT_FILES,
          ),
        ),
      async () =>
        void product.push(
          rate(
            await importWithCli(
              context,
              company,
              join(context.stack.dir, 'import', String(run)),
              cfdiFiles(IMPORT_FILES, 1_000_000 + run * IMPORT_FILES),
              cliTimes,
            ),
            IMPORT_FILES,
          ),
        ),
    );
  }
  const started = await workflowsStarted(context, since);
  // The CLI's share of each import, and how long the deliveries took once it had exited.
  const totals = product.map((documentsPerSecond) => (IMPORT_FILES / documentsPerSecond) * 1000);
  const tails = totals.map((total, run) => total - cliTimes[run]!);
  const cliShare = median(cliTimes.map((cli, run) => (cli / totals[run]!) * 100));
  const imported = context.runs * IMPORT_FILES;
  context.log(
    `  import ${product.map((v) => v.toFixed(0)).join(' / ')} documents/s; ` +
      `trivial workflows ${floor.map((v) => v.toFixed(0)).join(' / ')}/s; ${started.lifecycles} lifecycles, ` +
      `${started.deliveries} delivery workflows and ${started.queues} queue runs for ${imported} documents`,
  );
  // What else bounds an import, measured on this machine now: its workflow alone, the CLI's start and the
  // parse-and-insert ceiling.
  const alone = { lifecycles: [] as number[], trivial: [] as number[] };
  for (let run = 0; run < context.runs; run++)
    await backToBack(
      run,
      async () =>
        void alone.trivial.push(
          await startAndComplete(
            context.raw.temporal,
            `bench-raw/import-floor/alone-${run}/${Date.now()}`,
            LIFECYCLES_ALONE,
            START_CONCURRENCY,
          ),
        ),
      async () => void alone.lifecycles.push(await lifecyclesAlone(context, company, LIFECYCLES_ALONE)),
    );
  // Rates, so the ratio of the trivial workflows' time to the lifecycles'.
  const aloneRatio = median(alone.trivial.map((trivial, run) => trivial / alone.lifecycles[run]!));
  const aloneRate = median(alone.lifecycles.map((milliseconds) => rate(milliseconds, LIFECYCLES_ALONE)));
  await settle();
  const startup = median([await cliStartup(context), await cliStartup(context), await cliStartup(context)]);
  const rawRate = rate(
    await rawInsert(context.stack.databaseUrl, company.id, cfdiFiles(IMPORT_FILES, 2_000_000)),
    IMPORT_FILES,
  );
  return row({
    path: `document import (${IMPORT_FILES.toLocaleString('en')} CFDI, with document.created delivered)`,
    figure: 'rate',
    unit: 'documents/s',
    baselineName: `raw start+complete of ${IMPORT_FILES.toLocaleString('en')} trivial workflows`,
    product,
    baseline: floor,
    kind: 'min',
    target: 0.8,
    checks: [
      {
        name: 'workflows per imported document',
        value:
          `${(started.lifecycles + started.deliveries) / imported} (${started.lifecycles} lifecycles, ` +
          `${started.deliveries} delivery workflows for ${imported} documents; ${started.queues} runs of the ` +
          "subscription's queue begun during them, besides the one the warm-up started)",
        met: started.lifecycles === imported && started.deliveries === 0,
      },
      {
        name: `its workflow alone: ${LIFECYCLES_ALONE} lifecycles started as the import starts them, with nothing to wait on, against as many trivial workflows (rate)`,
        value: `${aloneRatio.toFixed(2)}× (${aloneRate.toFixed(1)} lifecycles/s; median of ${context.runs} back-to-back pairs)`,
        met: aloneRatio >= 0.8,
      },
    ],
    bound: [
      "One workflow per document; its document.created delivery goes out in a batch of its subscription's queue.",
      `CPU bounds the rate, the 2 cores saturated. The document's workflow alone ran at ${aloneRatio.toFixed(2)}× ` +
        'the trivial rate; the rest',
      "is the document's own work: its parse, transaction, stored XML and delivery (parsing and inserting alone: " +
        `${rawRate.toFixed(0)} documents/s).`,
      `The CLI ran ${cliShare.toFixed(0)}% of each import (median ${median(cliTimes).toFixed(0)} ms, ` +
        `${startup.toFixed(0)} ms loading); all else ended ${median(tails).toFixed(0)} ms after it.`,
      'CPU per process and what was tried: docs/decisions.md, "Import: the document\'s own work".',
    ],
  });
}

/** Records a `document.created` event for each document, as an import does, ready to deliver. */
async function recordDeliveries(
  context: BenchContext,
  company: SeededCompany,
  documents: SeededDocument[],
): Promise<DeliveryToStart[]> {
  const em = companyEm(context.stack.orm, company.id);
  const entity = await em.findOneOrFail(Company, { id: company.id }, { filters: false });
  const loaded = await em.find(Document, { id: { $in: documents.map((document) => document.id) } });
  const deliveries: DeliveryToStart[] = [];
  for (const document of loaded)
    deliveries.push(
      ...(await recordEvent(
        em,
        entity,
        'document.created',
        document.id,
        await documentCreatedPayload(em, document, context.stack.apiUrl),
      )),
    );
  await em.flush();
  return deliveries;
}

async function webhookScenario(context: BenchContext, documents: SeededDocument[]): Promise<Row> {
  const company = context.seed.companies.find((candidate) => candidate.country === 'COL')!;
  if (documents.length < WARM_UP_DELIVERIES + context.runs * DELIVERIES)
    throw new Error('not enough documents for the webhook bursts');
  await subscribe(context, company);
  const schedule = retryScheduleFromEnv(context.stack.env);
  const burst = async (set: SeededDocument[]) => {
    const deliveries = await recordDeliveries(context, company, set);
    const ids = deliveries.map((delivery) => delivery.id);
    return timed(async () => {
      await eachWithConcurrency(deliveries, START_CONCURRENCY, (delivery) =>
        startDeliveries(context.product, schedule, [delivery]),
      );
      await until(
        async () => (await deliveredCount(context, 'id', ids)) === ids.length,
        300_000,
        'webhook deliveries',
        100,
      );
    });
  };
  const sets = [
    documents.slice(0, WARM_UP_DELIVERIES),
    ...Array.from({ length: context.runs }, (_, n) =>
      documents.slice(WARM_UP_DELIVERIES + n * DELIVERIES, WARM_UP_DELIVERIES + (n + 1) * DELIVERIES),
    ),
  ];
  await burst(sets[0]!);
  await startAndComplete(context.raw.temporal, 'bench-raw/webhooks/warm-up', WARM_UP_DELIVERIES, START_CONCURRENCY);
  const product: number[] = [];
  const raw: number[] = [];
  for (let run = 1; run <= context.runs; run++) {
    await backToBack(
      run,
      async () =>
        void raw.push(
          DELIVERIES /
            ((await startAndComplete(
              context.raw.temporal,
              `bench-raw/webhooks/${run}`,
              DELIVERIES,
              START_CONCURRENCY,
            )) /
              1000),
        ),
      async () => void product.push(DELIVERIES / ((await burst(sets[run]!)) / 1000)),
    );
  }
  context.log(
    `  deliveries ${product.map((v) => v.toFixed(0)).join(' / ')}/s; raw start+complete ${raw.map((v) => v.toFixed(0)).join(' / ')}/s`,
  );
  return row({
    path: `webhook delivery (${DELIVERIES} document.created)`,
    figure: 'sustained rate',
    unit: 'deliveries/s',
    baselineName: 'raw start+complete of workflows',
    product,
    baseline: raw,
    kind: 'min',
    target: 0.8,
    bound: [
      'A delivery is a workflow whose one task runs a local activity: one statement reads and holds the delivery, it',
      "signs and POSTs it, one statement records the attempt; the trivial workflow's task only returns.",
      'See docs/decisions.md, "Hot paths as statements".',
    ],
  });
}

export async function importScenarios(context: BenchContext): Promise<Row[]> {
  context.memory.enter('workflows');
  context.log('document import (1,000 CFDI)');
  return [await importScenario(context)];
}

export async function webhookScenarios(context: BenchContext, documents: SeededDocument[]): Promise<Row[]> {
  context.memory.enter('workflows');
  context.log(`webhook delivery (${DELIVERIES} document.created)`);
  return [await webhookScenario(context, documents)];
}
