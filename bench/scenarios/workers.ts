// The production shape's import with two workers against one: the same operator CLI import of CFDI, until every
// document's document.created is delivered, with the second worker stopped, then running again. Reported as it is.
import { join } from 'node:path';
import { row, type BenchContext, type Row } from '../context.ts';
import { backToBack, median } from '../stats.ts';
import { cfdiFiles, importWithCli, subscribe } from './ingestion.ts';

const FILES = Number(process.env.BENCH_WORKER_FILES ?? 500);
const WARM_UP_FILES = 50;
/** Folios of their own: the import scenario's files take 900,000 to 2,003,000. */
const FOLIO_BASE = 5_000_000;

/** Import rate with the second worker stopped, against both running; production shape only. */
export async function workerScenario(context: BenchContext): Promise<Row[]> {
  const production = context.stack.production;
  if (!production) throw new Error('one worker against two needs the production shape (BENCH_SHAPE=production)');
  const second = production.workers[1]!;
  const company = context.seed.companies.find((candidate) => candidate.country === 'MEX')!;
  context.memory.enter('workflows');
  context.log(`import of ${FILES} CFDI with one worker and with two`);
  await subscribe(context, company);

  let folio = FOLIO_BASE;
  /** Documents per second of one import of `count` new files. */
  const importRate = async (name: string, count: number) => {
    const files = cfdiFiles(count, folio);
    folio += count;
    const milliseconds = await importWithCli(context, company, join(context.stack.dir, 'import-workers', name), files);
    return count / (milliseconds / 1000);
  };
  await importRate('warm-up', WARM_UP_FILES);

  const one: number[] = [];
  const two: number[] = [];
  for (let run = 0; run < context.runs; run++) {
    await backToBack(
      run,
      async () => {
        // As an operator scales down: the worker drains and exits; its tasks go to the one left.
        await second.stop();
        try {
          one.push(await importRate(`one-${run}`, FILES));
        } finally {
          await second.start();
        }
      },
      async () => void two.push(await importRate(`two-${run}`, FILES)),
    );
  }
  context.log(
    `  one worker ${one.map((rate) => rate.toFixed(1)).join(' / ')} documents/s; two workers ${two.map((rate) => rate.toFixed(1)).join(' / ')} documents/s`,
  );
  return [
    row({
      path: `document import, two workers against one (${FILES.toLocaleString('en')} CFDI, with document.created delivered)`,
      figure: 'rate',
      unit: 'documents/s',
      baselineName: 'the same import with one worker',
      product: two,
      baseline: one,
      kind: 'report',
      bound: [
        `Two workers imported ${median(two).toFixed(1)} documents/s against ${median(one).toFixed(1)} for one ` +
          '(the second stopped, drained, for the one-worker runs).',
        'On 2 cores a second worker adds no processor: it shares them with the two APIs, PostgreSQL, the Temporal',
        'server and the CLI, so the figure mostly shows what coordinating two workers costs (polls and matching split',
        'between them, two caches of workflows, two runtimes and pools). On more cores the second would add its own.',
        'See docs/decisions.md, "Import: the document\'s own work".',
      ],
    }),
  ];
}
