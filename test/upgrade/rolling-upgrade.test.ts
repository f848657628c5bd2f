// A rolling upgrade, as docs/operations.md ("Deploying a release") tells an operator to run it: the last release's
// APIs and workers (a real checkout of its tag) serve flows that wait (lifecycles on a step, payments on a date or an
// account, deliveries to a receiver that does not answer, reception events); this checkout's migration runs while the
// release serves; its workers start as a new build, are ramped, made current, rolled back and made current again; the
// old APIs and workers stop once the old build has nothing pinned left. Every flow then finishes through the new APIs.
// Between the two, documentLifecycle and paymentProcess changed incompatibly (the `waiting-since` patch).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../platform/temp-dir.ts';
import { CREATE_COMPANY, dianForwarding, MEMBER } from '../harness/company.ts';
import { runCli } from '../harness/operator.ts';
import { writeInvoices } from '../harness/invoices.ts';
import { ensureReleaseCommit, LAST_RELEASE } from '../harness/release.ts';
import { startProductionStack, type ProductionStack, type ReleaseProcesses } from '../harness/production-stack.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
/** The release being upgraded from. */
const RELEASE = LAST_RELEASE.tag;
const DEPLOYMENT = 'accounts-payable';
const LIFECYCLES = 50;
const PAYMENTS = { onDate: 10, onAccount: 10 };
const DAY = 86_400_000;
/** A day in Colombia, the company's country (UTC-5): its pay dates are its days. */
const day = (offset: number) => new Date(Date.now() - 5 * 3_600_000 + offset * DAY).toISOString().slice(0, 10);

let stack: ProductionStack;
let released: string;
let kept = false;

beforeAll(async () => {
  released = join(tempDir('ap-release-'), RELEASE);
  ensureReleaseCommit(REPO);
  execFileSync('git', ['worktree', 'add', '--detach', released, LAST_RELEASE.commit], { cwd: REPO });
  // The release runs on this checkout's dependencies when it locked the same ones (else it installs its own).
  const lock = (dir: string) => readFileSync(join(dir, 'package-lock.json'), 'utf8');
  if (!existsSync(join(released, 'node_modules'))) {
    if (lock(released) === lock(REPO)) symlinkSync(join(REPO, 'node_modules'), join(released, 'node_modules'));
    else execFileSync('npm', ['ci', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: released, stdio: 'ignore' });
  }
  stack = await startProductionStack({ release: released });
});
afterAll(async () => {
  if (kept && stack) console.log(`[upgrade] logs kept in ${join(stack.dir, 'logs')}`);
  await stack?.stop({ keep: kept });
  if (existsSync(released)) execFileSync('git', ['worktree', 'remove', '--force', released], { cwd: REPO });
});

/** The operator CLI of this checkout; its commands are the same in both releases. */
async function ops(...args: string[]): Promise<any> {
  const answer = await runCli(stack.env, args);
  if (answer.code !== 0) throw new Error(`ops ${args.join(' ')}: ${JSON.stringify(answer.error)}`);
  return answer.stdout;
}

/** One request to one API, as an integrator sends it; throws on anything but the expected status. */
async function call(base: string, apiKey: string, method: string, path: string, body?: unknown, expected = 200) {
  const response = await fetch(`${base}/public/api/v1${path}`, {
    method,
    headers: {
      'api-key': apiKey,
      ...(method === 'POST' ? { 'idempotency-key': crypto.randomUUID() } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const answer = response.status === 204 ? null : await response.json();
  if (response.status !== expected) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * Integrators' reads against the serving APIs during the rollout, as behind a load balancer; every failed one is
 * counted. `serveFrom` changes the APIs as the balancer would: once the round under way has ended, none goes to the
 * ones left out.
 */
function steadyTraffic(apiKey: string, initial: string[]) {
  const failures: string[] = [];
  let serving = initial;
  let requests = 0;
  let running = true;
  let roundEnded = Promise.withResolvers<void>();
  const loop = (async () => {
    while (running) {
      for (const base of serving) {
        requests += 1;
        try {
          const response = await fetch(`${base}/public/api/v1/documents?page_size=5`, {
            headers: { 'api-key': apiKey },
          });
          if (response.status !== 200) failures.push(`${base}: ${response.status}`);
          await response.arrayBuffer();
        } catch (error) {
          failures.push(`${base}: ${(error as Error).message}`);
        }
      }
      roundEnded.resolve();
      roundEnded = Promise.withResolvers<void>();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    async serveFrom(urls: string[]) {
      serving = urls;
      await roundEnded.promise;
    },
    async stop() {
      running = false;
      await loop;
      return { requests, failures };
    },
  };
}

/** A process's peak resident memory so far, in MB. */
function peakResidentMb(pid: number | undefined): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('VmHWM:'));
  return Math.round(Number(/(\d+)/.exec(line!)![1]) / 1024);
}

/** Running executions matching a visibility query. */
async function count(query: string): Promise<number> {
  const out = await stack.temporalCli('workflow', 'count', '--query', query, '-o', 'json');
  return Number((JSON.parse(out) as { count?: string | number }).count ?? 0);
}

describe('a rolling upgrade from the last release', () => {
  it('keeps every flow in flight, fails no request, survives a rollback, and finishes every flow on the new build', async () => {
    kept = true;
    const n = { buildId: stack.productEnv.WORKER_BUILD_ID, apiUrls: stack.apiUrls };
    // The company: one approval step, and two document.created receivers.
    const { reference: company, api_key: apiKey } = await ops(...CREATE_COMPANY);
    await ops('members', 'add', '--company', company, '--email', MEMBER, '--name', 'Ana Gómez');
    await ops('features', 'enable', '--company', company, '--feature', 'workflow_api');
    const flowFile = join(stack.dir, 'flow.json');
    writeFileSync(
      flowFile,
      JSON.stringify({ steps: [{ action: 'document.approval', kind: 'approval', assignees: [MEMBER] }] }),
    );
    await ops('flows', 'set', '--company', company, '--file', flowFile);
    // The ERP's receiver; and an address of the suite's network where nothing listens, whose deliveries wait, retried,
    // through the rollout.
    const silent = `https://${stack.namespace.address}:9/silent`;
    for (const [url, retries, timeout] of [
      [stack.receiver.url, '3', '5'],
      [silent, '2', '2'],
    ] as const)
      await ops(
        'webhooks',
        'add',
        '--company',
        company,
        '--event',
        'document.created',
        '--url',
        url,
        '--secret',
        stack.receiver.secret,
        '--retries',
        retries,
        '--timeout',
        timeout,
      );

    // Release N: the flows in flight.
    const invoices = writeInvoices(join(stack.dir, 'invoices'), LIFECYCLES + 6, `upgrade-${Date.now()}`);
    const imported = await ops(
      'documents',
      'import',
      '--company',
      company,
      ...invoices.slice(0, LIFECYCLES).map((invoice) => invoice.path),
    );
    const documents = (imported.documents as { reference: string }[]).map((document) => document.reference);
    expect(documents).toHaveLength(LIFECYCLES);
    const pendingSteps = async () =>
      Number(
        (
          await stack.query<{ n: string }>(
            `select count(*) as n from workflow_steps where company_id = $1 and status = 'pending'`,
            [company],
          )
        )[0]!.n,
      );
    await expect.poll(pendingSteps, { timeout: 240_000 }).toBe(LIFECYCLES);

    const [nApi] = n.apiUrls as [string];
    const supplier = async (name: string, number: string) =>
      (
        await call(
          nApi,
          apiKey,
          'POST',
          '/beneficiaries',
          { name, identifier_type: 'NIT', identifier_number: number },
          201,
        )
      ).reference as string;
    const paid = await supplier('Suministros del Valle S.A.S.', '900555111');
    const unpaid = await supplier('Distribuciones Sin Cuenta S.A.S.', '900555222');
    const banks = await call(nApi, apiKey, 'GET', '/banks');
    await call(
      nApi,
      apiKey,
      'POST',
      `/beneficiaries/${paid}/bank-accounts`,
      { bank_reference: banks[0].reference, account_number: '002010077777777771', account_type: 'checking' },
      201,
    );
    const payment = async (beneficiary: string, payDate: string) =>
      (
        await call(
          nApi,
          apiKey,
          'POST',
          '/payments',
          {
            beneficiary_reference: beneficiary,
            amount: 150_000,
            amount_currency: 'COP',
            pay_date: payDate,
            payable_payload: { expiration_date: payDate },
          },
          201,
        )
      ).reference as string;
    const onDate: string[] = [];
    for (let i = 0; i < PAYMENTS.onDate; i++) onDate.push(await payment(paid, day(30)));
    const onAccount: string[] = [];
    for (let i = 0; i < PAYMENTS.onAccount; i++) onAccount.push(await payment(unpaid, day(0)));
    await expect
      .poll(async () => {
        const states = await Promise.all(
          onAccount.map((reference) => call(nApi, apiKey, 'GET', `/payments/${reference}`)),
        );
        return states.filter((state) => state.payment_gateway?.status === 'waiting_for_validated_account').length;
      })
      .toBe(PAYMENTS.onAccount);
    // Reception events for ten documents (030: acknowledgement of receipt), under way as the rollout starts.
    const cufes = invoices.slice(0, 10).map((invoice) => invoice.cufe);
    await call(nApi, apiKey, 'POST', '/events/batch', { documents_fiscal_reference: cufes, events_type: ['030'] }, 200);
    expect(await count(`ExecutionStatus = 'Running' AND WorkflowType = 'documentLifecycle'`)).toBe(LIFECYCLES);
    // A fiscal sync of the company's DIAN mailbox, started on the release.
    await ops(...dianForwarding(company));
    await call(nApi, apiKey, 'POST', '/fiscal-sync', undefined, 202);

    // Release N+1: migrated while N serves, started beside it, ramped, made current; a rollback drill; N stopped.
    const traffic = steadyTraffic(apiKey, [...n.apiUrls]);
    await stack.migrate(REPO);
    const next: ReleaseProcesses = await stack.startRelease(REPO);
    expect(next.buildId).not.toBe(n.buildId);
    await traffic.serveFrom([...n.apiUrls, ...next.apiUrls]);
    const deployment = (...args: string[]) =>
      stack.temporalCli('worker', 'deployment', ...args, '--deployment-name', DEPLOYMENT, '--yes');
    await deployment('set-ramping-version', '--build-id', next.buildId, '--percentage', '50');
    const [ramped1, ramped2] = (
      await ops('documents', 'import', '--company', company, invoices[LIFECYCLES]!.path, invoices[LIFECYCLES + 1]!.path)
    ).documents as { reference: string }[];
    await deployment('set-current-version', '--build-id', next.buildId);
    // Rollback drill: the release is current again; a document imported now runs on it; then forward again.
    await deployment('set-current-version', '--build-id', n.buildId);
    const [rolledBack] = (await ops('documents', 'import', '--company', company, invoices[LIFECYCLES + 2]!.path))
      .documents as { reference: string }[];
    await expect.poll(pendingSteps).toBe(LIFECYCLES + 3);
    const onBuild = (document: string, buildId: string) =>
      count(`WorkflowId = 'document/${document}' AND TemporalWorkerDeploymentVersion = '${DEPLOYMENT}:${buildId}'`);
    await expect.poll(() => onBuild(rolledBack!.reference, n.buildId)).toBe(1);
    await deployment('set-current-version', '--build-id', next.buildId);
    const [current] = (await ops('documents', 'import', '--company', company, invoices[LIFECYCLES + 3]!.path))
      .documents as { reference: string }[];
    await expect.poll(pendingSteps).toBe(LIFECYCLES + 4);
    await expect.poll(() => onBuild(current!.reference, next.buildId)).toBe(1);
    // The patched change: a lifecycle the new build started says since when it waits; one the release started
    // (and replays on the new build) does not, as the release did not.
    const waiting = async () =>
      ((await ops('flows', 'stuck', '--older-than', '0m', '--company', company)).flows as { workflowId: string }[]).map(
        (flow) => flow.workflowId,
      );
    await expect.poll(waiting).toContain(`document/${current!.reference}`);
    expect(await waiting()).not.toContain(`document/${documents[0]}`);
    // The old APIs stop first (they only start flows); the old workers once nothing is pinned to their build.
    await traffic.serveFrom([...next.apiUrls]);
    await Promise.all(stack.apis.map((api) => api.stop()));
    const pinnedToN = `ExecutionStatus = 'Running' AND TemporalWorkerDeploymentVersion = '${DEPLOYMENT}:${n.buildId}' AND TemporalWorkflowVersioningBehavior = 'Pinned'`;
    await expect.poll(() => count(pinnedToN), { timeout: 300_000 }).toBe(0);
    const peaks = stack.workers.map((worker) => peakResidentMb(worker.pid));
    await Promise.all(stack.workers.map((worker) => worker.stop()));
    const rollout = await traffic.stop();

    // Every flow finishes through the new APIs.
    const [api] = next.apiUrls as [string];
    const all = [...documents, ramped1!.reference, ramped2!.reference, rolledBack!.reference, current!.reference];
    for (const document of all) {
      const step = await call(api, apiKey, 'GET', `/workflow-steps/current?entity_reference=${document}`);
      await call(api, apiKey, 'POST', `/workflow-steps/${step.step.reference}/complete`, {
        decision: 'reject',
        acting_user_email: MEMBER,
      });
    }
    await expect.poll(pendingSteps).toBe(0);
    await ops(
      'bank-accounts',
      'add',
      '--beneficiary',
      unpaid,
      '--bank',
      banks[0].reference,
      '--account-number',
      '002010077777777772',
      '--account-type',
      'checking',
    );
    for (const reference of onDate) await ops('payments', 'reschedule', '--payment', reference, '--due-date', day(0));
    await expect
      .poll(
        async () => {
          const states = await Promise.all(
            [...onDate, ...onAccount].map((reference) => call(api, apiKey, 'GET', `/payments/${reference}`)),
          );
          return states.map((state) => state.status).filter((status) => status === 'processed').length;
        },
        { timeout: 240_000 },
      )
      .toBe(PAYMENTS.onDate + PAYMENTS.onAccount);
    const rejected = await Promise.all(all.map((reference) => call(api, apiKey, 'GET', `/documents/${reference}`)));
    expect(new Set(rejected.map((document) => document.approval_status))).toEqual(new Set(['rejected']));
    await expect.poll(async () => (await call(api, apiKey, 'GET', '/fiscal-sync/status')).status).toBe('finished');
    const byStatus = async (sql: string) =>
      Object.fromEntries(
        (await stack.query<{ status: string; n: string }>(sql, [company])).map((row) => [row.status, Number(row.n)]),
      );
    const deliveries = (url: string) =>
      byStatus(
        `select d.status, count(*) as n from webhook_deliveries d join webhook_subscriptions s on s.id = d.subscription_id
         where d.company_id = $1 and s.url = '${url}' group by d.status`,
      );
    await expect.poll(() => deliveries(stack.receiver.url)).toEqual({ delivered: all.length });
    await expect.poll(() => deliveries(silent)).toEqual({ failed: all.length });
    // DIAN's simulator rejects an acknowledgement of an invoice it never received: a final answer, as expected.
    await expect
      .poll(() => byStatus(`select status, count(*) as n from reception_events where company_id = $1 group by status`))
      .toEqual({ rejected: cufes.length });

    const stuckLifecycles = await count(
      `ExecutionStatus = 'Running' AND (WorkflowType = 'documentLifecycle' OR WorkflowType = 'paymentProcess')`,
    );
    await expect
      .poll(
        () =>
          count(
            `ExecutionStatus = 'Running' AND (WorkflowType = 'documentLifecycle' OR WorkflowType = 'paymentProcess' OR WorkflowType = 'receptionEvent' OR WorkflowType = 'webhookDelivery')`,
          ),
        { timeout: 300_000 },
      )
      .toBe(0);
    const stuck = (await ops('flows', 'stuck', '--older-than', '0m', '--company', company)).flows as unknown[];
    const logs = join(stack.dir, 'logs');
    const nondeterminism = readdirSync(logs)
      .filter((file) => file.startsWith('worker-'))
      .map(
        (file) =>
          readFileSync(join(logs, file), 'utf8')
            .split('\n')
            .filter((line) => /nondetermin/i.test(line)).length,
      )
      .reduce((sum, lines) => sum + lines, 0);
    const receptionEvents = await byStatus(
      'select status, count(*) as n from reception_events where company_id = $1 group by status',
    );

    console.log(
      [
        `[upgrade] ${RELEASE} (${n.buildId}) → ${next.buildId}`,
        `  in flight on ${RELEASE}: ${LIFECYCLES} lifecycles on a step, ${PAYMENTS.onDate} payments on a date, ` +
          `${PAYMENTS.onAccount} on an account, deliveries to a silent receiver, ${cufes.length} reception events`,
        `  started during the rollout: 2 ramped, 1 after the rollback (ran on ${RELEASE}), 1 on the new build`,
        `  outcomes: ${all.length} lifecycles ended (rejected), ${PAYMENTS.onDate + PAYMENTS.onAccount} payments processed, ` +
          `${all.length} deliveries delivered and ${all.length} failed (silent receiver), ` +
          `reception events ${JSON.stringify(receptionEvents)}, fiscal sync finished`,
        `  requests during the rollout: ${rollout.requests}, failed: ${rollout.failures.length}`,
        `  workflow tasks failed for nondeterminism: ${nondeterminism}`,
        `  flows stuck at the end: ${stuck.length} (lifecycles and payments still running: ${stuckLifecycles})`,
        `  rollback drill: ok`,
        `  worker peak resident memory (MB): ${RELEASE} ${peaks.join(', ')}; new build ${next.workers.map((worker) => peakResidentMb(worker.pid)).join(', ')}`,
      ].join('\n'),
    );
    expect(rollout.failures).toEqual([]);
    expect(nondeterminism).toBe(0);
    expect(stuck).toEqual([]);
    for (const peak of [...peaks, ...next.workers.map((worker) => peakResidentMb(worker.pid))])
      expect(peak).toBeLessThan(400);
    kept = false;
  });
});
