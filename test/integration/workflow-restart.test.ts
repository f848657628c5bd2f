import { NativeConnection, type Worker } from '@temporalio/worker';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { createWorker } from '../../worker/worker.ts';
import { testActivityDeps } from '../helpers/activity-deps.ts';
import { seedDocument, setFlow, startLifecycle } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// A task queue and workers of this file's own, so that stopping them leaves the rest of the suite alone.
const TASK_QUEUE = `restart-${process.pid}`;
let api: TestApi;
let connection: NativeConnection;

beforeAll(async () => {
  api = await startTestApi();
  connection = await NativeConnection.connect({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await connection?.close();
  await api?.close();
});

async function runWorker(): Promise<{ worker: Worker; stopped: Promise<void> }> {
  const worker = await createWorker({
    config: { address: inject('temporalAddress'), namespace: 'default', taskQueue: TASK_QUEUE },
    connection,
    deps: testActivityDeps({ orm: api.orm, client: api.client, taskQueue: TASK_QUEUE, storageDir: inject('storageDir'), publicUrl: inject('publicUrl'), outside: inject('outside') }),
  });
  return { worker, stopped: worker.run() };
}

describe('worker restart', () => {
  it('continues a flow where it was when its worker stops and another starts', async () => {
    const members = [{ email: 'ana@example.co', name: 'Ana' }];
    const { company, apiKey } = await makeCompany(api.orm, { features: ['workflow_api'], members });
    await setFlow(api.orm, company, {
      steps: [
        { action: 'document.approval', kind: 'approval', assignees: ['ana@example.co'] },
        { action: 'document.classification', kind: 'classification', field_name: 'cost_center', options: [{ value: 'cc-1', label: 'Uno' }], assignees: ['ana@example.co'] },
      ],
    });
    const sdk = api.sdk(apiKey);
    const current = async () => {
      const answer = await sdk.getCurrentWorkflowStep({ query: { entity_reference: document.id } });
      return answer.status === 200 ? answer.body.step : undefined;
    };

    const first = await runWorker();
    const document = await seedDocument(api.orm, company);
    await startLifecycle({ client: api.client, taskQueue: TASK_QUEUE }, document);
    await expect.poll(async () => (await current())?.action, { timeout: 30_000 }).toBe('document.approval');
    const step = (await current())!;

    first.worker.shutdown();
    await first.stopped;

    // The decision is taken while no worker runs: the request waits for the workflow, which a new worker resumes.
    const decision = sdk.completeWorkflowStep({ params: { reference: step.reference }, body: { decision: 'approve', acting_user_email: 'ana@example.co' } });
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
});
