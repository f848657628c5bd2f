import { LockMode } from '@mikro-orm/core';
import type { RadianPerson } from '../../fiscal/radian-person.ts';
import type { Company } from '../companies/company.entity.ts';
import type { EntityManager } from '../orm.ts';
import { CIEC_STATUSES, FiscalCredential, type CiecStatus } from './fiscal-credential.entity.ts';
import { FiscalSyncRun } from './fiscal-sync-run.entity.ts';
import { FiscalSyncRefused, planSync, rateLimitRefusal, type SyncRefusalCode } from './fiscal-sync-rules.ts';

export { CIEC_STATUSES, type CiecStatus };

export { FiscalSyncRefused };

/** Refusals about the window, not the set-up: the spec's hourly limit (429, with when to retry) answers before them. */
const WINDOW_REFUSALS: ReadonlySet<SyncRefusalCode> = new Set(['dian_sync_window_empty']);

/**
 * Claims the company's synchronisation of this hour and records its run, in one transaction that holds the
 * company's credential row locked: concurrent requests queue on the lock, and only the first passes. The set-up is
 * checked first, then the hourly limit, then the window; a refused request does not count against the limit. Times
 * are the database's clock.
 */
export async function claimFiscalSync(em: EntityManager, company: Company): Promise<FiscalSyncRun> {
  return em.transactional(async (tx) => {
    const credential = await tx.findOne(
      FiscalCredential,
      { company: company.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    // Read after the lock is held, so the wait for a concurrent claim is not counted as elapsed time.
    const now = await databaseNow(tx);
    const plan = planSync(company.country, credential, now);
    if (plan instanceof FiscalSyncRefused && !WINDOW_REFUSALS.has(plan.code)) throw plan;
    const limited = rateLimitRefusal(credential!.lastSyncStartedAt ?? null, now);
    if (limited) throw limited;
    if (plan instanceof FiscalSyncRefused) throw plan;
    credential!.lastSyncStartedAt = now;
    return tx.create(FiscalSyncRun, {
      company: company.id,
      country: plan.country,
      startedAt: now,
      syncFrom: plan.syncFrom,
      syncTo: plan.syncTo,
      status: 'pending',
      fetchingStatus: null,
      extractionId: null,
      errorCode: null,
      message: null,
      details: null,
      finishedAt: null,
    });
  });
}

/**
 * Undoes a claim whose sync never started at the outside system (the provider or DIAN refused or did not answer):
 * the run is removed and the limit goes back to the previous run's start.
 */
export async function releaseFiscalSync(em: EntityManager, runId: string): Promise<void> {
  await em.transactional(async (tx) => {
    const run = await tx.findOne(FiscalSyncRun, { id: runId });
    if (!run) return;
    const credential = await tx.findOne(
      FiscalCredential,
      { company: run.company.id },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    tx.remove(run);
    await tx.flush();
    const previous = await tx.findOne(FiscalSyncRun, { id: { $ne: runId } }, { orderBy: { startedAt: 'desc' } });
    if (credential && credential.lastSyncStartedAt?.getTime() === run.startedAt.getTime())
      credential.lastSyncStartedAt = previous?.startedAt ?? null;
  });
}

/** The company's most recent synchronisation, or null when there never was one. */
export async function latestFiscalSync(em: EntityManager): Promise<FiscalSyncRun | null> {
  return em.findOne(FiscalSyncRun, {}, { orderBy: { startedAt: 'desc' } });
}

/** The company's synchronisations started at or after an instant, newest first. */
export async function fiscalSyncsSince(em: EntityManager, since: Date): Promise<FiscalSyncRun[]> {
  return em.find(FiscalSyncRun, { startedAt: { $gte: since } }, { orderBy: { startedAt: 'desc' } });
}

export interface CredentialChanges {
  ciecStatus?: CiecStatus;
  rfc?: string;
  dianForwarding?: boolean;
  dian?: { nit: string; legalRepresentative: string };
  /** The company's habilitación test set; null clears it (the company is enabled). */
  dianTestSetId?: string | null;
  /** Who receives for the company in RADIAN events 030 and 032; null removes it. */
  dianEventPerson?: RadianPerson | null;
}

/** Creates or changes what the company has set up for fiscal sync (the CIEC itself is never stored, only its status). */
export async function setFiscalCredentials(
  em: EntityManager,
  company: Company,
  changes: CredentialChanges,
): Promise<FiscalCredential> {
  const credential =
    (await em.findOne(FiscalCredential, { company: company.id })) ??
    em.create(FiscalCredential, {
      company: company.id,
      satCiecStatus: null,
      rfc: null,
      dianForwardingEnabled: false,
      dianNit: null,
      dianLegalRepresentative: null,
      lastSyncAt: null,
      lastSyncStartedAt: null,
    });
  if (changes.ciecStatus) credential.satCiecStatus = changes.ciecStatus;
  if (changes.rfc) credential.rfc = changes.rfc;
  if (changes.dianForwarding !== undefined) credential.dianForwardingEnabled = changes.dianForwarding;
  if (changes.dianTestSetId !== undefined) credential.dianTestSetId = changes.dianTestSetId;
  if (changes.dianEventPerson !== undefined) credential.dianEventPerson = changes.dianEventPerson;
  if (changes.dian) {
    credential.dianNit = changes.dian.nit;
    credential.dianLegalRepresentative = changes.dian.legalRepresentative;
  }
  await em.flush();
  return credential;
}

/** The company's fiscal-sync set-up, or null when nothing was registered. */
export async function findFiscalCredentials(em: EntityManager): Promise<FiscalCredential | null> {
  return em.findOne(FiscalCredential, {});
}

/** The database's clock, to the millisecond (what a JavaScript Date holds). */
export async function databaseNow(em: EntityManager): Promise<Date> {
  const [row] = await em.execute<{ now: Date }[]>(`select date_trunc('milliseconds', clock_timestamp()) as now`);
  return new Date(row!.now);
}
