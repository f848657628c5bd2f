import { readFileSync } from 'node:fs';
import { expectStatus, type FiscalSyncAccepted } from '@accounts-payable/client';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemEm } from '../../db/orm.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  dianMailbox,
  FAST_FISCAL_SYNC_TIMING,
  latestRun,
  registerCredentials,
  satProvider,
  uniqueNit,
  uniqueRfc,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const SECRET = 'whsec-fiscal-sync';
const INVOICE_UUID = '6d7434a6-e3f2-47ad-9e4c-08849946afa0';
const CUFE_OF_ATTACHED = /^[0-9a-f]{96}$/;

let api: TestApi;
let receiver: ErpReceiver;
beforeAll(async () => {
  api = await startTestApi({ config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(async () => {
  await receiver.stop();
  await api.close();
});

const sync = (apiKey: string) => api.sdk(apiKey).startFiscalSync();
const status = (apiKey: string, startedAt?: string) =>
  api.sdk(apiKey).getFiscalSyncStatus({ query: { started_at: startedAt } });
const current = async (apiKey: string, startedAt?: string) => expectStatus(await status(apiKey, startedAt), 200);
/** The 202 answer to a sync of a company of this country. */
async function accepted<C extends FiscalSyncAccepted['country']>(apiKey: string, country: C) {
  const body = expectStatus(await sync(apiKey), 202);
  expect(body.country).toBe(country);
  return body as Extract<FiscalSyncAccepted, { country: C }>;
}
const documentsOf = async (apiKey: string, fields?: string) =>
  expectStatus(await api.sdk(apiKey).listDocuments({ query: { fields } }), 200);
const credentials = async (companyId: string, ...flags: string[]) => {
  const result = await ops('fiscal', 'credentials', '--company', companyId, ...flags);
  expect(result.code, JSON.stringify(result.stderr)).toBe(0);
  return result.stdout;
};
/** Lets the company start a sync again now, as if its last one had started more than an hour ago. */
const forgetRateLimit = (companyId: string) =>
  systemEm(api.orm).execute(
    `update fiscal_credentials set last_sync_started_at = clock_timestamp() - interval '61 minutes' where company_id = ?`,
    [companyId],
  );
const settled = async (apiKey: string, startedAt?: string) => {
  await expect
    .poll(async () => (await current(apiKey, startedAt)).status, { timeout: 30_000, interval: 200 })
    .toMatch(/^(finished|failed)$/);
  return current(apiKey, startedAt);
};

async function mexicanCompany(options: { ciec?: 'pending' | 'valid' | 'invalid' } = {}) {
  const made = await makeCompany(api.orm, { country: 'MEX' });
  const rfc = uniqueRfc();
  if (options.ciec) await registerCredentials(api.orm, made.company, { ciecStatus: options.ciec, rfc });
  return { ...made, rfc };
}

async function colombianCompany() {
  const made = await makeCompany(api.orm, { country: 'COL' });
  const nit = uniqueNit();
  await registerCredentials(api.orm, made.company, {
    dianForwarding: true,
    dian: { nit, legalRepresentative: 'Ana Pérez' },
  });
  return { ...made, nit };
}

describe('authentication', () => {
  it('answers 401 without a valid API key', async () => {
    expect((await api.sdk().startFiscalSync()).status).toBe(401);
    expect((await api.sdk('apk_nope').getFiscalSyncStatus()).body).toEqual({
      code: 'unauthorized',
      message: 'A valid API key is required',
    });
  });
});

describe('preconditions', () => {
  it('Mexico: a registered, valid CIEC; refusals do not count against the hourly limit', async () => {
    const { company, apiKey, rfc } = await mexicanCompany();
    expect(await sync(apiKey)).toMatchObject({ status: 422, body: { code: 'sat_credentials_not_configured' } });
    expect(await credentials(company.id, '--ciec-status', 'pending', '--rfc', rfc.toLowerCase())).toEqual({
      company: company.id,
      country: 'MEX',
      last_sync_started_at: null,
      sat: { rfc, ciec_status: 'pending' },
    });
    expect(await sync(apiKey)).toMatchObject({ status: 422, body: { code: 'sat_ciec_pending' } });
    await credentials(company.id, '--ciec-status', 'invalid');
    expect(await sync(apiKey)).toMatchObject({
      status: 422,
      body: { code: 'sat_ciec_invalid', message: expect.any(String) },
    });
    await credentials(company.id, '--ciec-status', 'valid');
    expect((await sync(apiKey)).status).toBe(202);
  });

  it('Colombia: DIAN forwarding (403), then NIT and legal representative', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    expect(await sync(apiKey)).toMatchObject({ status: 403, body: { code: 'dian_automatic_sync_not_configured' } });
    await credentials(company.id, '--dian-forwarding', 'on');
    expect(await sync(apiKey)).toMatchObject({ status: 422, body: { code: 'dian_credentials_not_configured' } });
    const set = await credentials(
      company.id,
      '--dian-nit',
      '900.123.456-7',
      '--dian-legal-representative',
      'Ana Pérez',
    );
    expect(set.dian).toEqual({
      forwarding: true,
      nit: '900123456',
      legal_representative: 'Ana Pérez',
      mailbox_folder: company.id,
      test_set_id: null,
      signing_certificate: null,
    });
    expect((await sync(apiKey)).status).toBe(202);
  });

  it('the CLI refuses flags of the other country and half a DIAN credential', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const mismatch = await ops('fiscal', 'credentials', '--company', company.id, '--ciec-status', 'valid');
    expect([mismatch.code, mismatch.stderr.error.code]).toEqual([1, 'country_mismatch']);
    const half = await ops('fiscal', 'credentials', '--company', company.id, '--dian-nit', '900123456');
    expect([half.code, half.stderr.error.code]).toEqual([2, 'usage']);
  });
});

describe('rate limit: one sync per company per hour', () => {
  it('answers 429 with the seconds left, exact to the second, from the database clock', async () => {
    const { company, apiKey } = await mexicanCompany({ ciec: 'valid' });
    const first = await sync(apiKey);
    expect(first.status).toBe(202);
    const second = await sync(apiKey);
    const refusal = expectStatus(second, 429);
    expect(refusal).toEqual({
      code: 'fiscal_sync_rate_limited',
      message: expect.any(String),
      retry_after_seconds: expect.any(Number),
    });
    expect(refusal.retry_after_seconds).toBeGreaterThanOrEqual(3598);
    expect(refusal.retry_after_seconds).toBeLessThanOrEqual(3600);
    expect(second.headers.get('retry-after')).toBe(String(refusal.retry_after_seconds));

    // 3,000.5 s ago leaves 599.5 s: 600 whole seconds to wait.
    await systemEm(api.orm).execute(
      `update fiscal_credentials set last_sync_started_at = clock_timestamp() - interval '3000.5 seconds' where company_id = ?`,
      [company.id],
    );
    expect(expectStatus(await sync(apiKey), 429).retry_after_seconds).toBe(600);
    await forgetRateLimit(company.id);
    expect((await sync(apiKey)).status).toBe(202);
  });

  it('lets exactly one of many concurrent requests through', async () => {
    const { apiKey } = await mexicanCompany({ ciec: 'valid' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => sync(apiKey)));
    expect(answers.map((answer) => answer.status).sort((a, b) => a - b)).toEqual([
      202, 429, 429, 429, 429, 429, 429, 429,
    ]);
  });

  it('applies to Colombian companies too, while the sync runs and once it has finished (before the empty window)', async () => {
    const { apiKey } = await colombianCompany();
    const { started_at: startedAt } = await accepted(apiKey, 'COL');
    expect((await sync(apiKey)).status).toBe(429);
    expect((await settled(apiKey, startedAt)).status).toBe('finished');
    // Finished today: the window is empty too, but the hour answers first, with when to retry.
    const again = await sync(apiKey);
    expect(expectStatus(again, 429)).toEqual({
      code: 'fiscal_sync_rate_limited',
      message: expect.any(String),
      retry_after_seconds: expect.any(Number),
    });
    expect(again.headers.get('retry-after')).toBe(String(expectStatus(again, 429).retry_after_seconds));
  });

  it('does not keep a 429 under its Idempotency-Key: the same key after the wait is evaluated afresh', async () => {
    const { company, apiKey } = await mexicanCompany({ ciec: 'valid' });
    const syncWithKey = (key: string) => api.sdk(apiKey).startFiscalSync({ idempotencyKey: key });
    expect((await syncWithKey('sync-first')).status).toBe(202);
    expect(await syncWithKey('sync-second')).toMatchObject({ status: 429, body: { code: 'fiscal_sync_rate_limited' } });
    await forgetRateLimit(company.id);
    const retried = await syncWithKey('sync-second');
    expect(retried.status).toBe(202);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    // An accepted answer is kept as before.
    const replayed = await syncWithKey('sync-second');
    expect([replayed.status, replayed.headers.get('idempotent-replayed')]).toEqual([202, 'true']);
  });
});

describe('Mexico: SAT bulk download through the extraction provider', () => {
  it('imports every CFDI of the package, skipping junk, and delivers document.created once per document', async () => {
    const { company, apiKey, rfc } = await mexicanCompany({ ciec: 'valid' });
    await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'document.created',
      '--url',
      `${receiver.url}/fiscal`,
      '--secret',
      SECRET,
    );
    expect(await current(apiKey)).toEqual({
      country: 'MEX',
      status: 'not_started',
      fetching_status: null,
      from: null,
      to: null,
      extraction_id: null,
      error_code: null,
    });

    const started = await accepted(apiKey, 'MEX');
    expect(started).toEqual({
      country: 'MEX',
      status: 'accepted',
      started_at: expect.any(String),
      sync_from: expect.stringMatching(/-06:00$/),
      sync_to: expect.stringMatching(/-06:00$/),
      extraction_id: expect.any(String),
    });
    expect(Date.parse(started.sync_to) - Date.parse(started.sync_from)).toBe(24 * 3_600_000);
    const [extraction] = await satProvider.extractions(rfc);
    expect(extraction).toMatchObject({
      id: started.extraction_id,
      rfc,
      period: { from: started.sync_from, to: started.sync_to },
    });

    const final = await settled(apiKey);
    expect(final).toEqual({
      country: 'MEX',
      status: 'finished',
      fetching_status: 'finished',
      from: started.sync_from,
      to: started.sync_to,
      extraction_id: started.extraction_id,
      error_code: null,
    });
    const [run] = (await ops('fiscal', 'syncs', '--company', company.id)).stdout.syncs;
    expect(run).toMatchObject({
      documents_imported: 2,
      entries_skipped: 6,
      details: {
        documents_created: 2,
        documents_existing: 0,
        payment_complements: 1,
        skipped: { not_xml: 2, macos_metadata: 1, empty: 1, invalid_document: 2 },
      },
    });

    const documents = (await documentsOf(apiKey, 'payment_receipt_complements')).items;
    expect(documents.map((document) => document.fiscal_reference as string).sort()).toEqual(
      [INVOICE_UUID, '6f35d3b5-3651-5370-bc2c-14cdbe384cd7'].sort(),
    );
    // The payment receipt came first in the package: it was applied once the invoice it pays was in.
    expect(
      documents.find((document) => document.fiscal_reference === INVOICE_UUID)?.payment_receipt_complements,
    ).toHaveLength(1);

    const created = () =>
      receiver.received.filter((request) => request.path === '/fiscal' && request.event === 'document.created');
    await expect.poll(() => created().length, { timeout: 20_000 }).toBe(2);
    expect(
      new Set(created().map((request) => (request.json as { data: { reference: string } }).data.reference)),
    ).toEqual(new Set(documents.map((document) => document.reference)));

    // A second sync finds the same CFDI: nothing new, and no second document.created.
    await forgetRateLimit(company.id);
    expect((await sync(apiKey)).status).toBe(202);
    expect((await settled(apiKey)).status).toBe('finished');
    expect((await latestRun(api.orm, company.id)).details).toMatchObject({
      documents_created: 0,
      documents_existing: 2,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(created()).toHaveLength(2);
  });

  it('polls while SAT accepts (1) and processes (2), recording the status on the way', async () => {
    const { apiKey, rfc } = await mexicanCompany({ ciec: 'valid' });
    await satProvider.behave(rfc, { polls: 6 });
    await sync(apiKey);
    await expect.poll(async () => (await current(apiKey)).status, { timeout: 10_000, interval: 50 }).toBe('running');
    expect((await settled(apiKey)).status).toBe('finished');
    expect((await satProvider.extractions(rfc))[0]!.verifications).toBe(6);
  });

  it('ends finished with no documents when SAT answers 5/5004', async () => {
    const { company, apiKey, rfc } = await mexicanCompany({ ciec: 'valid' });
    await satProvider.behave(rfc, { outcome: 'no_documents', polls: 2 });
    await sync(apiKey);
    expect(await settled(apiKey)).toMatchObject({ status: 'finished', fetching_status: 'finished', error_code: null });
    expect((await documentsOf(apiKey)).total).toBe(0);
    expect((await latestRun(api.orm, company.id)).message).toBe('SAT found no CFDI received in the window');
  });

  it('ends failed with the error code when the extraction fails at SAT or at the provider', async () => {
    const { company, apiKey, rfc } = await mexicanCompany({ ciec: 'valid' });
    await satProvider.behave(rfc, { outcome: 'error', satStatusCode: '404', polls: 2 });
    await sync(apiKey);
    expect(await settled(apiKey)).toMatchObject({
      status: 'failed',
      fetching_status: null,
      error_code: 'sat_request_error',
    });

    await satProvider.behave(rfc, { outcome: 'rejected', satStatusCode: '5002', polls: 1 });
    await forgetRateLimit(company.id);
    await sync(apiKey);
    expect(await settled(apiKey)).toMatchObject({ status: 'failed', error_code: 'sat_requests_exhausted' });

    // The provider's own failure: the CIEC refused at SAT's login. The company's CIEC is marked invalid.
    await satProvider.behave(rfc, { outcome: 'provider_error', errorCode: 'invalid_credentials', polls: 1 });
    await forgetRateLimit(company.id);
    await sync(apiKey);
    expect(await settled(apiKey)).toMatchObject({ status: 'failed', error_code: 'invalid_credentials' });
    await forgetRateLimit(company.id);
    expect(await sync(apiKey)).toMatchObject({ status: 422, body: { code: 'sat_ciec_invalid' } });
  });

  it("answers the provider's refusal to create the extraction, which does not count against the hour", async () => {
    const { company, apiKey, rfc } = await mexicanCompany({ ciec: 'valid' });
    await satProvider.behave(rfc, { refuseCreation: 'invalid_credentials' });
    expect(await sync(apiKey)).toMatchObject({ status: 422, body: { code: 'sat_ciec_invalid' } });
    expect((await current(apiKey)).status).toBe('not_started');
    // The provider's verdict is recorded: the CIEC must be registered again.
    expect((await credentials(company.id)).sat.ciec_status).toBe('invalid');
    await registerCredentials(api.orm, company, { ciecStatus: 'valid' });
    await satProvider.behave(rfc, { unavailable: 3 });
    expect(await sync(apiKey)).toMatchObject({ status: 503, body: { code: 'service_unavailable' } });
    await satProvider.behave(rfc, {});
    expect((await sync(apiKey)).status).toBe(202);
  });
});

describe('Colombia: DIAN access token and the e-mail mailbox', () => {
  const attachedDocument = readFileSync(new URL('dian/constructed-attached-document-invoice.xml', FIXTURES));
  const creditNote = readFileSync(new URL('dian/stenfrank-creditnote_signed_dian_v2.xml', FIXTURES));
  const supplierZip = zipSync({
    'ad09001234560002600000123.xml': attachedDocument,
    'fv09001234560002600000123.pdf': strToU8('%PDF-1.4\n%âãÏÓ\n'),
    '__MACOSX/._ad09001234560002600000123.xml': strToU8('junk'),
    'leame.txt': strToU8('Factura electrónica'),
  });

  it("imports the AttachedDocument e-mails that arrived in the window, after requesting DIAN's token", async () => {
    const { company, apiKey, nit } = await colombianCompany();
    await ops(
      'webhooks',
      'add',
      '--company',
      company.id,
      '--event',
      'document.created',
      '--url',
      `${receiver.url}/col`,
      '--secret',
      SECRET,
    );
    dianMailbox.deliver(company.id, {
      subject: 'Factura SETP990000008',
      attachments: [{ name: 'z09001234560002600000123.zip', data: supplierZip }],
      receivedAt: new Date(Date.now() - 3 * 86_400_000),
    });
    dianMailbox.deliver(company.id, {
      subject: 'Sin adjuntos fiscales',
      attachments: [{ name: 'logo.png', data: 'png' }],
    });
    // Outside the window (46 days ago): not read.
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'nc.xml', data: creditNote }],
      receivedAt: new Date(Date.now() - 46 * 86_400_000 - 3_600_000),
    });

    const started = await accepted(apiKey, 'COL');
    expect(started).toEqual({
      country: 'COL',
      status: 'accepted',
      started_at: expect.any(String),
      sync_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      sync_to: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect((Date.parse(started.sync_to) - Date.parse(started.sync_from)) / 86_400_000).toBe(45);
    expect(await dianMailbox.tokenRequests(nit)).toEqual([
      expect.objectContaining({ nit, legalRepresentative: 'Ana Pérez', status: 200 }),
    ]);

    const final = await settled(apiKey, started.started_at);
    expect(final).toEqual({
      country: 'COL',
      status: 'finished',
      // Skipped: the macOS metadata and the text file in the ZIP, and the mail with no fiscal document (said, not silent).
      message: 'Read 2 e-mail(s): 1 new document(s), 0 already present, 0 payment complement(s), 3 entr(ies) skipped',
    });
    const documents = (await documentsOf(apiKey)).items;
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({
      document_number: 'SETP990000008',
      fiscal_reference: expect.stringMatching(CUFE_OF_ATTACHED),
    });
    await expect
      .poll(() => receiver.received.filter((request) => request.path === '/col').length, { timeout: 20_000 })
      .toBe(1);

    // The window now starts tomorrow: nothing to synchronise today, whatever the hour.
    await forgetRateLimit(company.id);
    expect(await sync(apiKey)).toMatchObject({ status: 422, body: { code: 'dian_sync_window_empty' } });
  });

  it("answers DIAN's refusal of the credentials, which does not count against the hour", async () => {
    const { apiKey, nit } = await colombianCompany();
    await dianMailbox.behave(nit, 'refuse', 1);
    expect(await sync(apiKey)).toMatchObject({
      status: 422,
      body: { code: 'dian_credentials_not_configured', message: expect.stringContaining('DIAN refused') },
    });
    expect((await sync(apiKey)).status).toBe(202);
  });

  it('reports pending while a sync runs since started_at, and finished when none was started', async () => {
    const { apiKey } = await colombianCompany();
    expect(await current(apiKey)).toEqual({
      country: 'COL',
      status: 'finished',
      message: expect.stringContaining('No fiscal synchronisation was started since'),
    });
    const { started_at: startedAt } = await accepted(apiKey, 'COL');
    expect(['pending', 'finished']).toContain((await current(apiKey, startedAt)).status);
    expect((await settled(apiKey, startedAt)).status).toBe('finished');
    const later = new Date(Date.parse(startedAt) + 1000).toISOString();
    expect(await current(apiKey, later)).toMatchObject({
      message: expect.stringContaining('No fiscal synchronisation was started since'),
    });
    expect((await status(apiKey, 'yesterday')).status).toBe(400);
  });
});

describe('a key whose company no longer exists', () => {
  it('answers 422 company_not_found when the company is removed while the request is under way, then 401', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    const waitingOnCompany = async () =>
      Number(
        (
          await systemEm(api.orm).execute<{ n: string }[]>(
            `select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike '%from "companies"%for share%'`,
          )
        )[0]!.n,
      );
    let answer: Awaited<ReturnType<typeof status>> | undefined;
    // The product has no company deletion: remove the row as a manual clean-up would (replica mode skips the foreign
    // keys that would otherwise keep it), and commit only once the request, already authenticated, waits on the row.
    await systemEm(api.orm).transactional(async (tx) => {
      await tx.execute(`set local session_replication_role = replica`);
      await tx.execute(`delete from companies where id = ?`, [company.id]);
      const request = status(apiKey).then((result) => (answer = result));
      await expect.poll(waitingOnCompany, { timeout: 10_000, interval: 20 }).toBe(1);
      void request;
    });
    await expect.poll(() => answer?.status, { timeout: 10_000 }).toBe(422);
    expect(answer!.body).toEqual({ code: 'company_not_found', message: 'The company of this API key does not exist' });
    // From then on the key no longer authenticates.
    expect((await status(apiKey)).status).toBe(401);
  });
});
