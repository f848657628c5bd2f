// With the Temporal server down, the API keeps answering: what needs Temporal is refused at once with a flat 503
// `service_unavailable`, what needs only PostgreSQL still works (reception events are queued, and run once it is
// back), /readyz names Temporal, and once the server is back the same API process serves again. Real processes: the API and worker of the fault harness, its own Temporal server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dianForwarding, MEMBER, setUpCompany } from '../harness/company.ts';
import { integratorClient, type Integrator } from '../harness/integrator.ts';
import { writeInvoices } from '../harness/invoices.ts';
import { operatorClient, type Operator } from '../harness/operator.ts';
import { RetryStats } from '../harness/retry-stats.ts';
import { startFaultStack, type FaultStack } from '../harness/stack.ts';
import { join } from 'node:path';

/** Generous for a loaded 2-core machine, and far below the Temporal client's own retries (about 20 s). */
const REFUSED_WITHIN_MS = 10_000;
/** How long a command waits on Temporal (`worker/processes.ts`). */
const COMMAND_DEADLINE_MS = 20_000;

let stack: FaultStack;
let ops: Operator;
let apiKey: string;
/** After recovery, requests go through a client that retries a 503 as integrators do: the API must serve again by itself. */
let integrator: Integrator;
let documents: { reference: string; cufe: string }[];

beforeAll(async () => {
  stack = await startFaultStack();
  ops = operatorClient(stack.env, new RetryStats(), 60_000);
  let company: string;
  ({ company, apiKey } = await setUpCompany(stack, ops));
  integrator = integratorClient({ baseUrls: stack.apiUrls, apiKey, stats: new RetryStats(), giveUpAfterMs: 120_000 });
  const invoices = writeInvoices(join(stack.dir, 'invoices'), 3, company);
  const imported = await ops('documents', 'import', '--company', company, ...invoices.map((invoice) => invoice.path));
  documents = imported.stdout.documents.map((document: { reference: string; fiscal_reference: string }) => ({
    reference: document.reference,
    cufe: document.fiscal_reference,
  }));
  const forwarding = await ops(...dianForwarding(company));
  expect(forwarding.code).toBe(0);
}, 300_000);

afterAll(() => stack?.stop());

const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, ms: performance.now() - started };
};

const receptionEventStatus = async (cufe: string) =>
  (await call('GET', `/public/api/v1/documents?fields=invoice_reception_events&fiscal_reference=${cufe}`)).body.items[0]
    .invoice_reception_events[0]?.status;
const currentStep = async (reference: string) =>
  (await call('GET', `/public/api/v1/workflow-steps/current?entity_reference=${reference}`)).body?.step;
const approve = { decision: 'approve', acting_user_email: MEMBER };

describe('with the Temporal server down', () => {
  it('refuses what needs Temporal with a flat 503 at once, serves what needs only PostgreSQL, and recovers without a restart', async () => {
    const [first, second] = documents as [{ reference: string; cufe: string }, { reference: string; cufe: string }];
    await expect
      .poll(async () => (await currentStep(first.reference))?.action, { timeout: 60_000, interval: 250 })
      .toBe('document.approval');
    await expect
      .poll(async () => (await currentStep(second.reference))?.action, { timeout: 60_000, interval: 250 })
      .toBe('document.approval');
    const step = await currentStep(first.reference);
    // Restarts before this point (while the stack came up on a machine loaded by the rest of the suite) are
    // supervision's; the claim is about the process that serves through the outage.
    const exitsBefore = stack.api.unexpectedExits;

    await stack.temporal.kill();

    const readiness = await call('GET', '/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body).toEqual({ status: 'unavailable', checks: { database: 'up', temporal: 'down' } });
    expect(readiness.ms).toBeLessThan(REFUSED_WITHIN_MS);

    const commands = {
      'complete a step': () => call('POST', `/public/api/v1/workflow-steps/${step.reference}/complete`, approve),
      approve: () => call('POST', `/public/api/v1/documents/${second.reference}/approve`, {}),
      'start a fiscal sync': () => call('POST', '/public/api/v1/fiscal-sync'),
    };
    const refusedIn: string[] = [`readyz ${Math.round(readiness.ms)} ms`];
    for (const [name, command] of Object.entries(commands)) {
      const refused = await command();
      refusedIn.push(`${name} ${Math.round(refused.ms)} ms`);
      expect(refused.status, name).toBe(503);
      expect(refused.body, name).toEqual({ message: expect.any(String), code: 'service_unavailable' });
      expect(refused.ms, name).toBeLessThan(REFUSED_WITHIN_MS);
    }

    console.log(`[degraded] Temporal down: 503 service_unavailable in ${refusedIn.join(', ')}`);
    // Reception events need only PostgreSQL to be accepted: their workflows start once Temporal is back.
    const queued = await call('POST', '/public/api/v1/events/batch', {
      documents_fiscal_reference: [first.cufe],
      events_type: ['030'],
    });
    expect(queued.status).toBe(200);
    expect(queued.body.message).toContain('1 queued');
    expect(queued.ms).toBeLessThan(REFUSED_WITHIN_MS);

    const reads = [
      `/public/api/v1/documents/${first.reference}`,
      '/public/api/v1/documents?page_size=5',
      `/public/api/v1/workflow-steps/current?entity_reference=${first.reference}`,
      '/public/api/v1/fiscal-sync/status',
      '/public/api/v1/banks?page_size=1',
    ];
    for (const path of reads) expect((await call('GET', path)).status, path).toBe(200);

    const restartedAt = performance.now();
    await stack.temporal.start();
    await expect.poll(async () => (await call('GET', '/readyz')).status, { timeout: 60_000, interval: 250 }).toBe(200);
    console.log(
      `[degraded] ready again ${Math.round(performance.now() - restartedAt)} ms after the Temporal server was started`,
    );
    // The same API process, not restarted: it reconnected by itself.
    expect(stack.api.unexpectedExits, stack.api.tail()).toBe(exitsBefore);

    const completed = await integrator('POST', `/public/api/v1/workflow-steps/${step.reference}/complete`, {
      body: approve,
    });
    expect(completed.status).toBe(200);
    expect(completed.body.step).toMatchObject({ reference: step.reference, status: 'completed' });
    expect(
      (await integrator('POST', `/public/api/v1/documents/${second.reference}/approve`, { body: {} })).body,
    ).toMatchObject({ approval_status: 'approved' });
    // The refused sync did not count against the hour: a new one is accepted.
    expect((await integrator('POST', '/public/api/v1/fiscal-sync')).status).toBe(202);
    // The event queued while Temporal was down reaches a final state without being sent again: the sweep starts it.
    await expect.poll(() => receptionEventStatus(first.cufe), { timeout: 60_000, interval: 250 }).toBe('accepted');
  }, 300_000);

  it('answers 503 when no worker takes a step decision before its deadline, and the retried request gets the decision', async () => {
    const third = documents[2]!;
    await expect
      .poll(async () => (await currentStep(third.reference))?.action, { timeout: 60_000, interval: 250 })
      .toBe('document.approval');
    const step = await currentStep(third.reference);
    await stack.worker.kill();

    const path = `/public/api/v1/workflow-steps/${step.reference}/complete`;
    const idempotencyKey = `decide-${step.reference}`;
    const unanswered = await fetch(`${stack.apiUrl}${path}`, {
      method: 'POST',
      headers: { 'api-key': apiKey, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify(approve),
    });
    expect(unanswered.status).toBe(503);
    expect(await unanswered.json()).toEqual({ message: expect.any(String), code: 'service_unavailable' });

    await stack.worker.start();
    // Sent again with its key, the request joins the decision it started rather than being refused as not pending.
    const decided = await integrator('POST', path, { body: approve, idempotencyKey });
    expect(decided.status).toBe(200);
    expect(decided.body.step).toMatchObject({
      reference: step.reference,
      status: 'completed',
      decision: { values: ['approve'] },
    });
  }, 300_000);
});

describe('with the Temporal server hung', () => {
  it('answers 503 at the command deadline instead of waiting on, queues reception events at once, and serves again once the server does', async () => {
    const [first, second] = documents as [{ reference: string; cufe: string }, { reference: string; cufe: string }];
    await stack.temporal.freeze();
    try {
      const readiness = await call('GET', '/readyz');
      expect(readiness.body).toEqual({ status: 'unavailable', checks: { database: 'up', temporal: 'down' } });
      const [approval, batch] = await Promise.all([
        call('POST', `/public/api/v1/documents/${first.reference}/approve`, {}),
        call('POST', '/public/api/v1/events/batch', {
          documents_fiscal_reference: [second.cufe],
          events_type: ['030'],
        }),
      ]);
      expect(approval.status).toBe(503);
      expect(approval.body).toEqual({ message: expect.any(String), code: 'service_unavailable' });
      // The command deadline is 20 s; without one, the call waited as long as the server hung.
      expect(approval.ms).toBeLessThan(COMMAND_DEADLINE_MS + REFUSED_WITHIN_MS);
      expect(batch.status).toBe(200);
      expect(batch.ms).toBeLessThan(REFUSED_WITHIN_MS);
      console.log(
        `[degraded] Temporal hung: 503 service_unavailable in approve ${Math.round(approval.ms)} ms; events batch queued in ${Math.round(batch.ms)} ms`,
      );
      expect((await call('GET', `/public/api/v1/documents/${first.reference}`)).status).toBe(200);
    } finally {
      stack.temporal.thaw();
    }
    await expect.poll(async () => (await call('GET', '/readyz')).status, { timeout: 60_000, interval: 250 }).toBe(200);
    expect(
      (await integrator('POST', `/public/api/v1/documents/${first.reference}/approve`, { body: {} })).body,
    ).toMatchObject({ approval_status: 'approved' });
    await expect.poll(() => receptionEventStatus(second.cufe), { timeout: 60_000, interval: 250 }).toBe('accepted');
  }, 300_000);
});
