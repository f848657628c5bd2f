import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { MEMBER, setUpCompany } from './company.ts';
import { faultSchedule, injectFaults, type FaultPlan } from './faults.ts';
import type { Figures } from './figures.ts';
import { integratorClient } from './integrator.ts';
import { writeInvoices } from './invoices.ts';
import { emptyLedger, runLoad, type LoadPlan } from './load.ts';
import { operatorClient } from './operator.ts';
import { checkPromises, noFindings, type Checked } from './promises.ts';
import { seededRandom } from './random.ts';
import { RetryStats } from './retry-stats.ts';
import { startFaultStack, type Stack } from './stack.ts';

export interface CrashProfile {
  name: string;
  load: LoadPlan;
  faults: FaultPlan;
  /** After the load and the last fault: how long every promise may take to hold (timers, retries, timeouts). */
  settleTimeoutMs: number;
}

/** Polls until every promise holds, or the time is up; answers the last check either way. Says what it waits for. */
async function settle(check: () => Promise<Checked>, timeoutMs: number, log: (line: string) => void): Promise<Checked> {
  const deadline = Date.now() + timeoutMs;
  let reportedAt = Date.now();
  for (;;) {
    const checked = await check().catch((error: Error) => ({ error }));
    if (!('error' in checked) && (noFindings(checked.findings) || Date.now() > deadline)) return checked;
    if ('error' in checked && Date.now() > deadline) throw checked.error;
    if (Date.now() - reportedAt > 15_000) {
      reportedAt = Date.now();
      const open =
        'error' in checked
          ? [`the check itself failed: ${checked.error.message}`]
          : [...checked.findings.lost, ...checked.findings.stuck, ...checked.findings.doubled];
      log(`waiting for ${open.length} promises, e.g. ${open[0]}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
}

function medianAndMax(values: number[]): { median: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)] ?? 0, max: sorted.at(-1) ?? 0 };
}

/** FAULT_KEEP=1 keeps the run's directory even when every promise held. */
const keepAnyway = process.env.FAULT_KEEP === '1';

/**
 * One crash-and-restart run: the whole product under load while its worker, API, Temporal server and PostgreSQL are
 * killed and restarted at seeded random moments; then, with everything up, every promise is checked.
 */
export async function runCrashRestart(
  profile: CrashProfile,
  seed: number,
  log: (line: string) => void,
): Promise<{ figures: Figures; held: boolean; logs: string | null }> {
  const startedAt = Date.now();
  const stack = await startFaultStack();
  log(`stack up in ${((Date.now() - startedAt) / 1000).toFixed(1)} s (${stack.dir}); seed ${seed}`);
  let held = false;
  try {
    const run = await runScenario(stack, profile, seed, log);
    held = run.held;
    return { ...run, logs: held && !keepAnyway ? null : join(stack.dir, 'logs') };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n(logs kept in ${join(stack.dir, 'logs')})`, { cause: error });
  } finally {
    // A failed run keeps its directory: the processes' logs, the database and Temporal's state.
    await stack.stop({ keep: !held || keepAnyway });
  }
}

/**
 * The load and the faults on a running stack of any shape, then the checks of every promise once everything is up;
 * the stack stays up for the caller. The company is set up first (flow, webhooks to the stack's ERP receiver).
 */
export async function runScenario(
  stack: Stack,
  profile: CrashProfile,
  seed: number,
  log: (line: string) => void,
): Promise<{ figures: Figures; held: boolean; company: string; apiKey: string }> {
  const random = seededRandom(seed);
  const startedAt = Date.now();
  let connection: Connection | undefined;
  try {
    const stats = new RetryStats();
    const giveUpAfterMs = profile.settleTimeoutMs;
    const ops = operatorClient(stack.env, stats, giveUpAfterMs);
    const { company, apiKey } = await setUpCompany(stack, ops);
    const api = integratorClient({ baseUrls: stack.apiUrls, apiKey, stats, giveUpAfterMs });
    const invoices = writeInvoices(join(stack.dir, 'invoices'), profile.load.documents, `${seed}-${company}`);

    const loadStartedAt = Date.now();
    const schedule = faultSchedule(profile.faults, random, stack);
    const ledger = emptyLedger();
    const inFlight = () => ledger.documents.size - ledger.finished.size;
    const [, faults] = await Promise.all([
      runLoad({ plan: profile.load, invoices, company, member: MEMBER, api, ops, random, ledger }),
      injectFaults(stack, schedule, loadStartedAt, inFlight, log),
    ]);
    const quietSince = Date.now();
    log(`load done: ${ledger.documents.size} documents, ${ledger.finished.size} flows seen ending; checking promises`);

    connection = await Connection.connect({ address: stack.temporalAddress });
    const temporal = new Client({ connection, namespace: 'default' });
    const checked = await settle(() => checkPromises(stack, temporal, company, ledger), profile.settleTimeoutMs, log);
    const held = noFindings(checked.findings) && stats.serverErrors.length === 0 && ledger.failures.length === 0;
    const figures: Figures = {
      profile: profile.name,
      seed,
      durationMs: Date.now() - startedAt,
      settleMs: Date.now() - quietSince,
      requests: stats.requests,
      accepted: ledger.accepted,
      doneByEarlierAttempt: ledger.doneByEarlierAttempt.size,
      waitedForAccount: ledger.waitedForAccount.size,
      failures: ledger.failures,
      flowMs: medianAndMax([...ledger.finished.values()]),
      faults,
      retries: stats.retries,
      serverErrors: stats.serverErrors,
      unexpectedExits: Object.fromEntries(stack.processes.map((process) => [process.name, process.unexpectedExits])),
      checked,
    };
    return { figures, held, company, apiKey };
  } finally {
    await connection?.close().catch(() => {});
  }
}
