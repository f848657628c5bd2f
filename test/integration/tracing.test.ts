import { randomBytes } from 'node:crypto';
import { trace } from '@opentelemetry/api';
import { Resource } from '@opentelemetry/resources';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startTracing } from '../../platform/tracing.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { initORM, type Orm } from '../../db/orm.ts';
import { freePort } from '../../platform/ports.ts';
import { startOtlpCollector, type OtlpCollector, type ReceivedSpan } from '../../simulators/otlp-collector/server.ts';
import { seedDocument, setFlow, startLifecycle } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { completeStepThroughLifecycle } from '../../temporal/documents.ts';
import { tracingWorkerOptions } from '../../temporal/tracing.ts';
import { WORKFLOWS_PATH } from '../../worker/worker.ts';
import { currentStepQuery } from '../../workflows/document.ts';
import { spawnApi, spawnWorker, type ApiProcess, type WorkerProcess } from '../helpers/processes.ts';

const queue = `tracing-${process.pid}`;
const ana = { email: 'ana@example.co', name: 'Ana Gómez' };
const FLOW = { steps: [{ action: 'document.approval', kind: 'approval', assignees: [ana.email], require_all: false }] };
const COMPLETE_ROUTE = '/public/api/v1/workflow-steps/:reference/complete';

let collector: OtlpCollector;
let worker: WorkerProcess;
let tracedApi: ApiProcess;
let untracedApi: ApiProcess;
let orm: Orm;
let connection: Connection;
let company: Company;
let apiKey: string;

beforeAll(async () => {
  // The replay workers of this file log at the suite's level.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  collector = await startOtlpCollector();
  const exporting = { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url };
  // The worker exports every 100 ms; the traced API only when it stops, so the test sees its shutdown flush the spans.
  worker = spawnWorker(queue, { ...exporting, OTEL_BSP_SCHEDULE_DELAY: '100' });
  tracedApi = spawnApi(await freePort(), {
    ...exporting,
    OTEL_BSP_SCHEDULE_DELAY: '600000',
    TEMPORAL_TASK_QUEUE: queue,
  });
  untracedApi = spawnApi(await freePort(), { TEMPORAL_TASK_QUEUE: queue });
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 2, statementTimeoutMs: 30_000, debug: false });
  connection = await Connection.connect({ address: inject('temporalAddress') });
  ({ company, apiKey } = await makeCompany(orm, { country: 'COL', features: ['workflow_api'], members: [ana] }));
  await setFlow(orm, company, FLOW);
  await Promise.all([worker.ready, tracedApi.ready, untracedApi.ready]);
});
afterAll(async () => {
  await Promise.all([worker?.kill('SIGTERM'), tracedApi?.kill(), untracedApi?.kill()]);
  await connection?.close();
  await orm?.close();
  await collector?.stop();
});

/** A new document whose lifecycle (on this file's worker) waits for Ana's approval; answers the document and its step. */
async function documentAwaitingApproval(api: ApiProcess) {
  const document = await seedDocument(orm, company);
  await startLifecycle({ client: new Client({ connection }), taskQueue: queue }, document);
  let step: { reference: string } | undefined;
  await expect
    .poll(async () => {
      const response = await fetch(`${api.url}/public/api/v1/workflow-steps/current?entity_reference=${document.id}`, {
        headers: { 'api-key': apiKey },
      });
      step = ((await response.json()) as { step?: { reference: string } }).step;
      return step?.reference;
    })
    .toEqual(expect.any(String));
  return { document, step: step! };
}

/** Approves the step through `api`, as a caller whose own trace is `traceId`; answers the caller's span id. */
async function approve(api: ApiProcess, step: string, traceId: string): Promise<string> {
  const callerSpanId = randomBytes(8).toString('hex');
  const response = await fetch(`${api.url}/public/api/v1/workflow-steps/${step}/complete`, {
    method: 'POST',
    headers: { 'api-key': apiKey, 'content-type': 'application/json', traceparent: `00-${traceId}-${callerSpanId}-01` },
    body: JSON.stringify({ decision: 'approve', acting_user_email: ana.email }),
  });
  expect(response.status).toBe(200);
  return callerSpanId;
}

const spansOf = (traceId: string) => collector.spans.filter((span) => span.traceId === traceId);
const named = (spans: ReceivedSpan[], name: string) => spans.find((span) => span.name === name);

describe('tracing', () => {
  it('follows a request from the API through the Temporal client into the workflow and its activity, in one trace', async () => {
    const { document, step } = await documentAwaitingApproval(tracedApi);
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = await approve(tracedApi, step.reference, traceId);

    const workerSpans = () =>
      spansOf(traceId)
        .filter((span) => span.service === 'accounts-payable-worker')
        .map((span) => span.name);
    await expect
      .poll(workerSpans)
      .toEqual(
        expect.arrayContaining([
          'ValidateUpdate:completeStep',
          'HandleUpdate:completeStep',
          'StartActivity:completeStep',
          'RunActivity:completeStep',
        ]),
      );
    // The API's spans are still in its batch: a graceful stop exports them.
    await tracedApi.kill('SIGTERM');
    const spans = spansOf(traceId);
    expect(tracedApi.output()).toContain(`"traceId":"${traceId}"`);

    const server = named(spans, `POST ${COMPLETE_ROUTE}`);
    expect(server).toMatchObject({
      service: 'accounts-payable-api',
      kind: 2,
      parentSpanId: callerSpanId,
      attributes: {
        'http.request.method': 'POST',
        'http.route': COMPLETE_ROUTE,
        'http.response.status_code': 200,
        'url.path': `/public/api/v1/workflow-steps/${step.reference}/complete`,
      },
    });
    const update = named(spans, 'StartWorkflowUpdate:completeStep');
    expect(update).toMatchObject({
      service: 'accounts-payable-api',
      parentSpanId: server!.spanId,
      attributes: { temporalWorkflowId: `document/${document.id}` },
    });
    const handler = named(spans, 'HandleUpdate:completeStep');
    expect(handler).toMatchObject({ service: 'accounts-payable-worker', parentSpanId: update!.spanId });
    // Workflow spans carry the workflow's identity, not its search attributes or memo.
    expect(handler!.attributes).toEqual({
      temporalUpdateId: expect.any(String),
      workflowId: `document/${document.id}`,
      runId: expect.any(String),
      workflowType: 'documentLifecycle',
      taskQueue: queue,
      namespace: 'default',
      attempt: 1,
    });
    const scheduled = named(spans, 'StartActivity:completeStep');
    expect(scheduled).toMatchObject({ service: 'accounts-payable-worker', parentSpanId: handler!.spanId });
    expect(named(spans, 'RunActivity:completeStep')).toMatchObject({
      service: 'accounts-payable-worker',
      parentSpanId: scheduled!.spanId,
      attributes: { temporalWorkflowId: `document/${document.id}` },
    });
    expect(spans.filter((span) => span.status === 2)).toEqual([]);
  });

  it('starts nothing without OTEL_EXPORTER_OTLP_ENDPOINT: the API exports no span and passes no trace on', async () => {
    expect(startTracing('accounts-payable-api', { OTEL_SERVICE_NAME: 'ignored' })).toBeNull();
    expect(untracedApi.output()).toMatch(
      /"tracing":false[^\n]*"msg":"api listening"|"msg":"api listening"[^\n]*"tracing":false/,
    );

    const { document, step } = await documentAwaitingApproval(untracedApi);
    const traceId = randomBytes(16).toString('hex');
    await approve(untracedApi, step.reference, traceId);
    // The traced worker still records the update, but in a trace of its own: nothing reached it from the API.
    let activity: ReceivedSpan | undefined;
    await expect
      .poll(
        () =>
          (activity = collector.spans.find(
            (span) =>
              span.name === 'RunActivity:completeStep' &&
              span.attributes.temporalWorkflowId === `document/${document.id}`,
          )),
      )
      .toBeDefined();
    expect(activity!.traceId).not.toBe(traceId);
    expect(spansOf(activity!.traceId).map((span) => span.service)).not.toContain('accounts-payable-api');
    expect(spansOf(traceId)).toEqual([]);
  });

  it('keeps workflows replayable when tracing is turned on or off while they run', async () => {
    const client = new Client({ connection });
    /** A document approved on `taskQueue` through the client alone: its workflow's history. */
    const approvedOn = async (taskQueue: string) => {
      const document = await seedDocument(orm, company);
      await startLifecycle({ client, taskQueue }, document);
      const handle = client.workflow.getHandle(`document/${document.id}`);
      let stepId: string | undefined;
      await expect.poll(async () => (stepId = (await handle.query(currentStepQuery))?.id)).toEqual(expect.any(String));
      await completeStepThroughLifecycle({ client, taskQueue }, document.id, {
        stepId: stepId!,
        actor: ana,
        values: ['approve'],
        labels: ['Approve'],
        comment: null,
      });
      return handle.fetchHistory();
    };
    // Recorded without tracing (the suite's worker), replayed with it: replay records no span.
    const spans = new InMemorySpanExporter();
    const tracing = {
      tracer: trace.getTracer('replay'),
      processor: new SimpleSpanProcessor(spans),
      resource: Resource.default(),
      shutdown: async () => {},
    };
    await Worker.runReplayHistory(
      { workflowsPath: WORKFLOWS_PATH, ...tracingWorkerOptions(tracing) },
      await approvedOn(inject('taskQueue')),
    );
    expect(spans.getFinishedSpans()).toEqual([]);
    // Recorded with tracing (this file's worker), replayed without.
    await Worker.runReplayHistory({ workflowsPath: WORKFLOWS_PATH }, await approvedOn(queue));
  });
});
