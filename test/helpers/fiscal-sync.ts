import { join } from 'node:path';
import { expectStatus, type Client } from '@accounts-payable/client';
import { expect, inject } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { setFiscalCredentials, type CredentialChanges } from '../../db/fiscal/fiscal-sync.repository.ts';
import { FiscalSyncRun } from '../../db/fiscal/fiscal-sync-run.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import type { SatScenario, SimulatedExtraction } from '../../simulators/sat-provider/server.ts';
import type { DianTokenMode, TokenRequest } from '../../simulators/dian-mailbox/server.ts';
import { deliverMail, type OutgoingMail } from '../../simulators/dian-mailbox/mail.ts';
import type { FiscalSyncTiming } from '../../workflows/fiscal-sync.ts';

/** Fiscal-sync pacing for tests: SAT extractions verified every few hundred milliseconds. */
export const FAST_FISCAL_SYNC_TIMING: FiscalSyncTiming = {
  pollInitialMs: 200,
  pollMaxMs: 400,
  giveUpAfterMs: 10 * 60_000,
};

let counter = 0;
/** An RFC of its own per test, so the shared SAT provider simulator can be steered for it alone. */
export function uniqueRfc(): string {
  const n = (process.pid * 1000 + (++counter % 1000)) % 1_000_000;
  const letters = 'ABCDEFGHJKLMNPQRSTUVWXYZ';
  const tag = `${letters[process.pid % letters.length]}${letters[Math.floor(process.pid / 24) % letters.length]}${letters[counter % letters.length]}`;
  return `T${tag}${String(n).padStart(6, '0')}X${String(counter % 100).padStart(2, '0')}`;
}

/** A NIT of its own per test, to steer the DIAN token simulator. */
export function uniqueNit(): string {
  return `9${String(process.pid % 100_000).padStart(5, '0')}${String(++counter % 1000).padStart(3, '0')}`;
}

async function control(base: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json()) as unknown;
  if (!response.ok) throw new Error(`simulator ${method} ${path}: HTTP ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** The suite's SAT extraction provider simulator, steered per RFC over its control API. */
export const satProvider = {
  behave: (rfc: string, scenario: SatScenario) =>
    control(inject('outside').satProviderUrl, 'POST', `/_control/rfcs/${rfc}/behave`, scenario),
  async extractions(rfc: string): Promise<SimulatedExtraction[]> {
    return (
      (await control(inject('outside').satProviderUrl, 'GET', `/_control/extractions/${rfc}`)) as {
        extractions: SimulatedExtraction[];
      }
    ).extractions;
  },
};

/** The suite's DIAN token service and mailbox. */
export const dianMailbox = {
  behave: (nit: string, mode: DianTokenMode, times?: number) =>
    control(inject('outside').dianAuthUrl!, 'POST', `/_control/nits/${nit}/behave`, {
      mode,
      ...(times ? { times } : {}),
    }),
  async tokenRequests(nit: string): Promise<TokenRequest[]> {
    return (
      (await control(inject('outside').dianAuthUrl!, 'GET', `/_control/token-requests/${nit}`)) as {
        requests: TokenRequest[];
      }
    ).requests;
  },
  /** Delivers an e-mail to the company's Maildir, as the company's forwarding would. */
  deliver: (companyId: string, mail: OutgoingMail) => deliverMail(inject('outside').dianMailboxDir!, companyId, mail),
  /** A company's own folder of the Maildir, for files a test places by hand. */
  folder: (companyId: string) => join(inject('outside').dianMailboxDir!, companyId.toLowerCase()),
};

/** Registers fiscal credentials directly (what `ops fiscal credentials` writes), for tests about something else. */
export async function registerCredentials(orm: Orm, company: Company, changes: CredentialChanges): Promise<void> {
  await setFiscalCredentials(companyEm(orm, company.id), company, changes);
}

/** The company's latest sync run as stored. */
export async function latestRun(orm: Orm, companyId: string): Promise<FiscalSyncRun> {
  const [run] = await companyEm(orm, companyId).find(FiscalSyncRun, {}, { orderBy: { startedAt: 'desc' }, limit: 1 });
  if (!run) throw new Error(`No fiscal sync for company ${companyId}`);
  return run;
}

/** Starts a fiscal sync of the client's company and waits for its end (finished or failed); answers its final status. */
export async function syncToTheEnd(sdk: Client, timeoutMs = 90_000) {
  const started = expectStatus(await sdk.startFiscalSync(), 202);
  const status = async () =>
    expectStatus(await sdk.getFiscalSyncStatus({ query: { started_at: started.started_at } }), 200);
  await expect
    .poll(async () => (await status()).status, { timeout: timeoutMs, interval: 250 })
    .toMatch(/^(finished|failed)$/);
  return status();
}
