// Synchronous commands through the document workflow (Workflow Updates): completing a step and approving, one at
// a time, against the round trip of `executeUpdate` on a trivial workflow.
import { FlowFile, toFlowDefinition } from '../../db/workflow-steps/flow-file.ts';
import { WorkflowFlow } from '../../db/workflow-steps/workflow-flow.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { startDocumentLifecycle } from '../../temporal/documents.ts';
import { workflowIds } from '../../workflows/ids.ts';
import { updateRoundTrips } from '../baselines/raw-temporal.ts';
import { row, type BenchContext, type Bound, type Row } from '../context.ts';
import type { SeededCompany, SeededDocument } from '../seed.ts';
import { postJson } from '../requests.ts';
import { eachWithConcurrency, latencyOf, median, timed, until } from '../stats.ts';
import {
  describeStages,
  durationOf,
  medianStages,
  timedUpdate,
  updateStages,
  type TimedUpdate,
  type UpdateStages,
} from '../update-stages.ts';

const PREFIX = '/public/api/v1';
const COMMANDS_PER_RUN = 40;
const WARM_UP = 5;

interface PendingStep {
  stepId: string;
  documentId: string;
  decision: string;
}

/**
 * One request to the raw HTTP+SQL baseline that authenticates the key (one query) and answers 404: what any command
 * over HTTP costs on this machine before its own checks, its update and its write.
 */
const authenticatedRoundTrip = (context: BenchContext, company: SeededCompany, path: string, body: unknown) =>
  timed(() => postJson(`${context.raw.httpUrl}${PREFIX}${path}`, company.apiKey, body, 404));

/** The company's flow becomes one approval step, and each document's lifecycle runs until that step is open. */
async function openApprovalSteps(
  context: BenchContext,
  company: SeededCompany,
  documents: SeededDocument[],
): Promise<PendingStep[]> {
  const em = companyEm(context.stack.orm, company.id);
  const flow = toFlowDefinition(
    FlowFile.parse({ steps: [{ action: 'document.approval', kind: 'approval', assignees: [company.member.email] }] }),
  );
  await em.upsert(
    WorkflowFlow,
    { company: company.id, definition: flow },
    { onConflictFields: ['company'], onConflictAction: 'merge', onConflictMergeFields: ['definition', 'updatedAt'] },
  );
  await eachWithConcurrency(documents, 16, (document) =>
    startDocumentLifecycle(context.product, {
      companyId: company.id,
      documentId: document.id,
      documentNumber: document.documentNumber,
      fiscalReference: document.fiscalReference,
      approvalStatus: document.approvalStatus,
      type: document.type,
      supplierName: null,
      amountCents: 0n,
      currency: company.country === 'MEX' ? 'MXN' : 'COP',
    }),
  );
  const ids = documents.map((document) => document.id);
  const pending = () =>
    em
      .getConnection()
      .execute<{ id: string; document_id: string; decision: { options: { value: string }[] } }[]>(
        `select id, document_id, decision from workflow_steps where document_id in (?) and status = 'pending'`,
        [ids],
      );
  await until(async () => (await pending()).length === ids.length, 120_000, 'opening the approval steps', 250);
  const byDocument = new Map((await pending()).map((step) => [step.document_id, step]));
  return ids.map((documentId) => {
    const step = byDocument.get(documentId)!;
    return {
      stepId: step.id,
      documentId,
      decision:
        step.decision.options.find((option) => option.value === 'approve')?.value ?? step.decision.options[0]!.value,
    };
  });
}

export async function commandScenarios(context: BenchContext, documents: SeededDocument[]): Promise<Row[]> {
  const company = context.seed.companies.find((candidate) => candidate.country === 'COL')!;
  const perSet = WARM_UP + context.runs * COMMANDS_PER_RUN;
  if (documents.length < 2 * perSet) throw new Error(`commands need ${2 * perSet} pending documents`);
  context.memory.enter('workflows');
  context.log('opening approval steps for the command benchmarks');
  const steps = await openApprovalSteps(context, company, documents.slice(0, 2 * perSet));
  const toComplete = steps.slice(0, perSet);
  const toApprove = steps.slice(perSet);

  const decision = (step: PendingStep) => ({ decision: step.decision, acting_user_email: company.member.email });
  const complete = (step: PendingStep) =>
    timedUpdate(workflowIds.document(step.documentId), () =>
      postJson(
        `${context.stack.apiUrl}${PREFIX}/workflow-steps/${step.stepId}/complete`,
        company.apiKey,
        decision(step),
      ),
    );
  const approve = (step: PendingStep) =>
    timedUpdate(workflowIds.document(step.documentId), () =>
      postJson(`${context.stack.apiUrl}${PREFIX}/documents/${step.documentId}/approve`, company.apiKey, {}),
    );
  const roundTrip = (step: PendingStep) =>
    authenticatedRoundTrip(context, company, `/workflow-steps/${step.stepId}/complete`, decision(step));
  const sequence = async <T>(work: (step: PendingStep) => Promise<T>, batch: PendingStep[]) => {
    const calls: T[] = [];
    for (const step of batch) calls.push(await work(step));
    return calls;
  };

  await sequence(complete, toComplete.slice(0, WARM_UP));
  await sequence(approve, toApprove.slice(0, WARM_UP));
  await updateRoundTrips(context.raw.temporal, 'bench-raw/echo/warm-up', WARM_UP);
  await updateRoundTrips(context.raw.temporal, 'bench-raw/echo-after-activity/warm-up', WARM_UP, {
    afterActivity: true,
  });
  await sequence(roundTrip, toComplete.slice(0, WARM_UP));
  const http: number[][] = [];
  const runs = {
    raw: [] as TimedUpdate[][],
    floor: [] as TimedUpdate[][],
    complete: [] as TimedUpdate[][],
    approve: [] as TimedUpdate[][],
  };
  for (let run = 0; run < context.runs; run++) {
    const slice = (list: PendingStep[]) =>
      list.slice(WARM_UP + run * COMMANDS_PER_RUN, WARM_UP + (run + 1) * COMMANDS_PER_RUN);
    runs.raw.push(await updateRoundTrips(context.raw.temporal, `bench-raw/echo/${run}`, COMMANDS_PER_RUN));
    runs.floor.push(
      await updateRoundTrips(context.raw.temporal, `bench-raw/echo-after-activity/${run}`, COMMANDS_PER_RUN, {
        afterActivity: true,
      }),
    );
    http.push(await sequence(roundTrip, slice(toComplete)));
    runs.complete.push(await sequence(complete, slice(toComplete)));
    runs.approve.push(await sequence(approve, slice(toApprove)));
  }
  const timings = (calls: TimedUpdate[][]) => calls.map((run) => run.map(durationOf));
  const p50s = (calls: TimedUpdate[][]) => timings(calls).map((run) => latencyOf(run).p50);
  context.log(
    `  executeUpdate p50 ${p50s(runs.raw)
      .map((v) => v.toFixed(1))
      .join(' / ')} ms; with a no-op activity ${p50s(runs.floor)
      .map((v) => v.toFixed(1))
      .join(' / ')} ms; an authenticated HTTP request ${http
      .map((run) => latencyOf(run).p50.toFixed(1))
      .join(' / ')} ms; complete ${p50s(runs.complete)
      .map((v) => v.toFixed(1))
      .join(' / ')} ms; approve ${p50s(runs.approve)
      .map((v) => v.toFixed(1))
      .join(' / ')} ms`,
  );

  const stages = {
    raw: medianStages(await updateStages(context.raw.temporal, runs.raw.flat())),
    floor: medianStages(await updateStages(context.raw.temporal, runs.floor.flat())),
    complete: medianStages(await updateStages(context.product.client, runs.complete.flat())),
    approve: medianStages(await updateStages(context.product.client, runs.approve.flat())),
  };
  for (const [name, figures] of Object.entries(stages)) context.log(`  ${name} (medians) ${describeStages(figures)}`);
  // Temporal's floor for the design's command flow, measured beside it: an update whose handler awaits a no-op
  // activity (two workflow tasks and an activity, nothing written, no API), against the raw update.
  const floorRatio = median(p50s(runs.floor).map((p50, run) => p50 / p50s(runs.raw)[run]!));
  // And with the HTTP request any command over HTTP makes: the floor of this design's command through an API.
  const httpP50s = http.map((run) => latencyOf(run).p50);
  const withHttp = p50s(runs.floor).map((p50, run) => p50 + httpP50s[run]!);
  const withHttpRatio = median(withHttp.map((floor, run) => floor / p50s(runs.raw)[run]!));
  const bound = (command: UpdateStages, ratio: number, beyond: string): Bound => [
    'The answer waits for the write: two workflow tasks and an activity, where the raw update answers in one task.',
    `Temporal's floor for that flow, measured here: ${median(p50s(runs.floor)).toFixed(1)} ms ` +
      `(${floorRatio.toFixed(2)}× the raw update), ${median(withHttp).toFixed(1)} ms ` +
      `(${withHttpRatio.toFixed(2)}×) with one HTTP request (${median(httpP50s).toFixed(1)} ms).`,
    `This command is ${(ratio / withHttpRatio).toFixed(2)}× that: ${beyond}.`,
    `From its history: ${describeStages(command)}.`,
    'Why it waits: docs/decisions.md, "Commands: the answer waits for the write".',
  ];
  // The tail against the median of the same runs: the figure of a command taken one at a time.
  const p99OverP50 = (calls: TimedUpdate[][]) =>
    median(timings(calls).map((run) => latencyOf(run).p99 / latencyOf(run).p50));
  const tail = (calls: TimedUpdate[][]) => ({
    name: 'p99 ≤ 3× p50',
    value: `${p99OverP50(calls).toFixed(1)}× (raw executeUpdate: ${p99OverP50(runs.raw).toFixed(1)}×)`,
    met: p99OverP50(calls) <= 3,
  });
  return [
    row({
      path: 'POST /workflow-steps/{ref}/complete',
      figure: 'p50 latency',
      unit: 'ms',
      baselineName: 'raw executeUpdate',
      product: p50s(runs.complete),
      baseline: p50s(runs.raw),
      kind: 'max',
      target: 2.5,
      latency: timings(runs.complete).map(latencyOf),
      baselineLatency: timings(runs.raw).map(latencyOf),
      checks: [tail(runs.complete)],
      bound: bound(
        stages.complete,
        median(p50s(runs.complete).map((p50, run) => p50 / p50s(runs.raw)[run]!)),
        "the API's key and pre-check query, the write's read and one statement",
      ),
    }),
    row({
      path: 'POST /documents/{ref}/approve',
      figure: 'p50 latency',
      unit: 'ms',
      baselineName: 'raw executeUpdate',
      product: p50s(runs.approve),
      baseline: p50s(runs.raw),
      kind: 'max',
      target: 2.5,
      latency: timings(runs.approve).map(latencyOf),
      baselineLatency: timings(runs.raw).map(latencyOf),
      checks: [tail(runs.approve)],
      bound: bound(
        stages.approve,
        median(p50s(runs.approve).map((p50, run) => p50 / p50s(runs.raw)[run]!)),
        "the API's key and pre-check query, the write's read and one statement, then the document's detail",
      ),
    }),
  ];
}
