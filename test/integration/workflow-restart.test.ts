import { NativeConnection, Worker } from '@temporalio/worker';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { bundleInChildProcess } from '../../worker/bundle.ts';
import { createWorker } from '../../worker/worker.ts';
import { testActivityDeps } from '../helpers/activity-deps.ts';
import { seedDocument, setFlow, startLifecycle } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// A task queue and workers of this file's own, so that stopping them leaves the rest of the suite alone.
const TASK_QUEUE = `restart-${process.pid}`;
let api: TestApi;
let connection: NativeConnection;
// Bundled once: a worker then starts in a moment, well within the deadline of the command that waits for it.
let workflowBundle: { code: string };

beforeAll(async () => {
  [api, workflowBundle] = await Promise.all([startTestApi(), bundleInChildProcess()]);
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await connection?.close();
  await api?.close();
});

const activityDeps = () =>
  testActivityDeps({
    orm: api.orm,
    client: api.client,
    taskQueue: TASK_QUEUE,
    storageDir: inject('storageDir'),
    publicUrl: inject('publicUrl'),
    outside: inject('outside'),
  });

async function runWorker(): Promise<{ worker: Worker; stopped: Promise<void> }> {
  const worker = await createWorker({
    config: { address: inject('temporalAddress'), namespace: 'default', taskQueue: TASK_QUEUE, security: {} },
    connection,
    deps: activityDeps(),
    workflowBundle,
  });
  return { worker, stopped: worker.run() };
}

/** A worker whose first step opening holds after its write, until `release`: the read state shows the step before the workflow learns of it. */
async function runWorkerHoldingFirstOpening() {
  const activities = createActivities(activityDeps());
  let written!: () => void;
  let release!: () => void;
  const opened = new Promise<void>((resolve) => (written = resolve));
  const held = new Promise<void>((resolve) => (release = resolve));
  const openStep: typeof activities.openStep = async (input) => {
    const step = await activities.openStep(input);
    written();
    await held;
    return step;
  };
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: TASK_QUEUE,
    workflowBundle,
    activities: { ...activities, openStep },
  });
  return { worker, stopped: worker.run(), opened, release };
}

async function approvalThenClassification() {
  const members = [{ email: 'ana@example.co', name: 'Ana' }];
  const { company, apiKey } = await makeCompany(api.orm, { features: ['workflow_api'], members });
  await setFlow(api.orm, company, {
    steps: [
      { action: 'document.approval', kind: 'approval', assignees: ['ana@example.co'] },
      {
        action: 'document.classification',
        kind: 'classification',
        field_name: 'cost_center',
        options: [{ value: 'cc-1', label: 'Uno' }],
        assignees: ['ana@example.co'],
      },
    ],
  });
  const document = await seedDocument(api.orm, company);
  const sdk = api.sdk(apiKey);
  const current = async () => {
    const answer = await sdk.getCurrentWorkflowStep({ query: { entity_reference: document.id } });
    return answer.status === 200 ? answer.body.step : undefined;
  };
  return { document, sdk, current };
}

describe('worker restart', () => {
  it('continues a flow where it was when its worker stops and another starts', async () => {
    const { document, sdk, current } = await approvalThenClassification();
    const first = await runWorker();
    await startLifecycle({ client: api.client, taskQueue: TASK_QUEUE }, document);
    await expect.poll(async () => (await current())?.action, { timeout: 30_000 }).toBe('document.approval');
    const step = (await current())!;

    first.worker.shutdown();
    await first.stopped;

    // The decision is taken while no worker runs: the request waits for the workflow, which a new worker resumes.
    const decision = sdk.completeWorkflowStep({
      params: { reference: step.reference },
      body: { decision: 'approve', acting_user_email: 'ana@example.co' },
    });
    const second = await runWorker();
    try {
      expect(expectStatus(await decision, 200).step).toMatchObject({ reference: step.reference, status: 'completed' });
      await expect.poll(async () => (await current())?.action, { timeout: 30_000 }).toBe('document.classification');
      const detail = expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200);
      expect(detail).toMatchObject({ approval_status: 'approved', payables: [expect.anything()] });
      expect(detail.logs.filter((log) => log.event === 'document.approved')).toHaveLength(1);
    } finally {
      second.worker.shutdown();
      await second.stopped;
    }
  });

  describe('a command on a step the read state shows before its workflow has learned that it opened', () => {
    type Flow = Awaited<ReturnType<typeof approvalThenClassification>>;
    /** The opening's result reaches the workflow in the same task as the command, on the next worker. */
    async function whileOpening<T>(flow: Flow, command: (step: { reference: string }) => Promise<T>): Promise<T> {
      const first = await runWorkerHoldingFirstOpening();
      await startLifecycle({ client: api.client, taskQueue: TASK_QUEUE }, flow.document);
      await first.opened;
      const step = (await flow.current())!;
      expect(step).toMatchObject({ action: 'document.approval', status: 'pending' });
      first.worker.shutdown();
      first.release();
      await first.stopped;
      const answer = command(step);
      const second = await runWorker();
      try {
        const answered = await answer;
        await expect
          .poll(async () => (await flow.current())?.action, { timeout: 30_000 })
          .toBe('document.classification');
        return answered;
      } finally {
        second.worker.shutdown();
        await second.stopped;
      }
    }

    it('takes a step decision', async () => {
      const flow = await approvalThenClassification();
      const decided = await whileOpening(flow, (step) =>
        flow.sdk.completeWorkflowStep({
          params: { reference: step.reference },
          body: { decision: 'approve', acting_user_email: 'ana@example.co' },
        }),
      );
      expect(expectStatus(decided, 200).step).toMatchObject({ status: 'completed', decision: { values: ['approve'] } });
      expect(expectStatus(await flow.sdk.getDocument({ params: { reference: flow.document.id } }), 200)).toMatchObject({
        approval_status: 'approved',
      });
    });

    it('writes two approvals that waited for the opening step one after the other', async () => {
      const flow = await approvalThenClassification();
      const activities = createActivities(activityDeps());
      let written!: () => void;
      let release!: () => void;
      const opened = new Promise<void>((resolve) => (written = resolve));
      const held = new Promise<void>((resolve) => (release = resolve));
      let running = 0;
      let mostAtOnce = 0;
      // Each write lasts a while, so that two let through together would overlap.
      const counted =
        <I, O>(write: (input: I) => Promise<O>) =>
        async (input: I): Promise<O> => {
          mostAtOnce = Math.max(mostAtOnce, ++running);
          try {
            await new Promise((resolve) => setTimeout(resolve, 300));
            return await write(input);
          } finally {
            running--;
          }
        };
      const worker = await Worker.create({
        connection,
        namespace: 'default',
        taskQueue: TASK_QUEUE,
        workflowBundle,
        activities: {
          ...activities,
          openStep: async (input: Parameters<typeof activities.openStep>[0]) => {
            const step = await activities.openStep(input);
            written();
            await held;
            return step;
          },
          completeStep: counted(activities.completeStep),
          approveDocument: counted(activities.approveDocument),
        },
      });
      const stopped = worker.run();
      try {
        await startLifecycle({ client: api.client, taskQueue: TASK_QUEUE }, flow.document);
        await opened;
        const step = (await flow.current())!;
        expect(step).toMatchObject({ action: 'document.approval', status: 'pending' });
        const approve = (reference: string) =>
          flow.sdk.approveDocument({
            params: { reference: flow.document.id },
            body: { erp_document_reference: reference },
          });
        const approvals = [approve('ERP-1'), approve('ERP-2')];
        // Both wait in the workflow for the step being opened; then both want to write at once.
        const handle = api.client.workflow.getHandle(`document/${flow.document.id}`);
        const accepted = async () =>
          ((await handle.fetchHistory()).events ?? []).filter(
            (event) => event.workflowExecutionUpdateAcceptedEventAttributes,
          ).length;
        await expect.poll(accepted, { timeout: 30_000 }).toBe(2);
        release();
        for (const approval of approvals)
          expect(expectStatus(await approval, 200)).toMatchObject({ approval_status: 'approved' });
        expect(mostAtOnce).toBe(1);
        const detail = expectStatus(await flow.sdk.getDocument({ params: { reference: flow.document.id } }), 200);
        expect(detail.logs.filter((log) => log.metadata.change === 'step_completed')).toHaveLength(1);
        expect(detail.logs.filter((log) => log.event === 'document.approved')).toHaveLength(2);
      } finally {
        release();
        worker.shutdown();
        await stopped;
      }
    });

    it('resolves the opening approval step with an approval', async () => {
      const flow = await approvalThenClassification();
      const approved = await whileOpening(flow, () =>
        flow.sdk.approveDocument({
          params: { reference: flow.document.id },
          body: { erp_document_reference: 'ERP-1' },
        }),
      );
      expect(expectStatus(approved, 200)).toMatchObject({ approval_status: 'approved' });
    });
  });
});
