// Colombian fiscal sync from a mailbox read over OAuth2 (SASL XOAUTH2), against a real Dovecot this file starts whose
// oauth2 passdb validates every token with the introspection endpoint of the OAuth2 simulator this file starts too
// (its token endpoint answers the client-credentials grant as Microsoft's does, and the JWT-bearer grant as Google's).
// Messages are placed with IMAP APPEND under the mailbox's own password (the test's client); the product logs in
// only with the tokens it obtains. A provider ending a session when its token expires is played by `doveadm kick`.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FiscalMailboxMessage } from '../../db/fiscal/fiscal-mailbox-message.entity.ts';
import { FiscalMailbox } from '../../db/fiscal/fiscal-mailbox.entity.ts';
import { FiscalSyncRun } from '../../db/fiscal/fiscal-sync-run.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { MICROSOFT_IMAP_SCOPE } from '../../services/fiscal-sync/mailbox-oauth2.ts';
import { startOAuth2Simulator, type OAuth2Simulator } from '../../simulators/oauth2/server.ts';
import { startDovecot, type Dovecot } from '../harness/dovecot.ts';
import { makeCompany } from '../helpers/companies.ts';
import { dianInvoiceXml } from '../helpers/dian-invoices.ts';
import { FAST_FISCAL_SYNC_TIMING, registerCredentials, uniqueNit } from '../helpers/fiscal-sync.ts';
import { ops as suiteOps, type OpsResult } from '../helpers/ops.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// Served only by the worker this file starts, which logs at its most verbose level: no token or secret may show.
const TASK_QUEUE = `fiscal-oauth2-${process.pid}`;
const DAY = 86_400_000;
const GOOGLE_SCOPE = 'https://mail.google.com/';

let dir: string;
let oauth2: OAuth2Simulator;
let dovecot: Dovecot;
let worker: WorkerProcess;
let api: TestApi;
/** Every secret this file handed the product, and everything the CLI printed. */
const secrets: string[] = [];
const cliOutput: string[] = [];

beforeAll(async () => {
  dir = tempDir('ap-oauth2-test-');
  oauth2 = await startOAuth2Simulator();
  dovecot = await startDovecot({ oauth2: { introspectionUrl: oauth2.introspectionUrl } });
  worker = spawnWorker(TASK_QUEUE, { LOG_LEVEL: 'trace' });
  api = await startTestApi({ taskQueue: TASK_QUEUE, config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
  await worker.ready;
});
afterAll(async () => {
  await worker?.kill();
  await api?.close();
  await dovecot?.stop();
  await oauth2?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function ops(...args: string[]): Promise<OpsResult> {
  const result = await suiteOps(...args);
  cliOutput.push(JSON.stringify(result));
  return result;
}

/** A Colombian company set up for DIAN sync, with a mailbox user on the Dovecot and an app that may read it. */
async function colombianCompany(options: { expiresIn?: number } = {}) {
  const made = await makeCompany(api.orm, { country: 'COL' });
  await registerCredentials(api.orm, made.company, {
    dianForwarding: true,
    dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
  });
  const user = `dian-${made.company.id}`;
  const password = randomBytes(12).toString('hex');
  dovecot.addUser(user, password);
  const clientId = randomUUID();
  const clientSecret = `${randomBytes(18).toString('base64url')}~Q8`;
  oauth2.addClient({
    clientId,
    clientSecret,
    mailbox: user,
    scopes: [MICROSOFT_IMAP_SCOPE],
    ...(options.expiresIn ? { expiresIn: options.expiresIn } : {}),
  });
  secrets.push(password, clientSecret);
  return { ...made, user, password, clientId, clientSecret };
}

/** Registers the mailbox over OAuth2 with `ops fiscal mailbox`, as an operator would: `flags` add or replace flags, null drops one. */
async function registerMailbox(
  company: { company: { id: string }; user: string; clientId: string; clientSecret: string },
  flags: Record<string, string | null> = {},
) {
  const secretFile = join(dir, `${company.company.id}.secret`);
  writeFileSync(secretFile, `${company.clientSecret}\n`);
  const given: Record<string, string | null> = {
    '--host': dovecot.host,
    '--port': String(dovecot.port),
    '--tls': 'false',
    '--user': company.user,
    '--client-id': company.clientId,
    '--client-secret-file': secretFile,
    '--token-url': oauth2.tokenUrl,
    '--scope': MICROSOFT_IMAP_SCOPE,
    ...flags,
  };
  const args = Object.entries(given).flatMap(([flag, value]) => (value === null ? [] : [flag, value]));
  return ops('fiscal', 'mailbox', '--company', company.company.id, ...args);
}

/** Flags of a Google service account instead of an app registration. */
const serviceAccountFlags = (keyFile: string) => ({
  '--client-id': null,
  '--client-secret-file': null,
  '--token-url': null,
  '--scope': null,
  '--service-account-file': keyFile,
});

/** The test's own IMAP client, logged in with the mailbox's password. */
async function imap(user: string, password: string): Promise<ImapFlow> {
  return dovecot.login(user, password);
}

/** Places `count` messages, each with an invoice of its own (FV000001...), as delivery would. */
async function appendInvoices(client: ImapFlow, count: number): Promise<string[]> {
  const numbers: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const documentNumber = `FV${String(index + 1).padStart(6, '0')}`;
    const { xml } = dianInvoiceXml({
      documentNumber,
      supplier: { name: 'Proveedor S.A.S.', nit: '900123456' },
      buyerNit: '900000001',
      lines: [{ description: `Servicio ${index + 1}`, quantity: 1, unitPriceCents: BigInt(100_000 + index * 100) }],
    });
    const receivedAt = new Date(Date.now() - DAY - index * 60_000);
    const raw = await new MailComposer({
      from: 'Facturación Proveedor <facturacion@proveedor.example.co>',
      to: 'dian@empresa.example.co',
      subject: `Factura electrónica ${documentNumber}`,
      messageId: `<${documentNumber}@proveedor.example.co>`,
      date: receivedAt,
      text: 'Adjuntamos la factura electrónica.',
      attachments: [{ filename: `fv${documentNumber}.xml`, content: Buffer.from(xml) }],
    })
      .compile()
      .build();
    await client.append('INBOX', raw, [], receivedAt);
    numbers.push(documentNumber);
  }
  return numbers;
}

/** Runs `use` on a session of the test's own (a kick ends every session of the user, the test's too). */
async function withImap<T>(user: string, password: string, use: (client: ImapFlow) => Promise<T>): Promise<T> {
  const client = await imap(user, password);
  try {
    return await use(client);
  } finally {
    await client.logout().catch(() => client.close());
  }
}

/** How many messages the Imported folder holds (0 before the first move creates it). */
async function importedCount(client: ImapFlow): Promise<number> {
  const folders = await client.list();
  if (!folders.some((folder) => folder.path === 'Imported')) return 0;
  const status = await client.status('Imported', { messages: true });
  return status ? (status.messages ?? 0) : 0;
}

const sync = async (apiKey: string) => expectStatus(await api.sdk(apiKey).startFiscalSync(), 202);
async function settled(apiKey: string, startedAt: string) {
  const status = async () => {
    const body = expectStatus(await api.sdk(apiKey).getFiscalSyncStatus({ query: { started_at: startedAt } }), 200);
    if (body.country !== 'COL') throw new Error(`Not a Colombian status: ${JSON.stringify(body)}`);
    return body;
  };
  await expect
    .poll(async () => (await status()).status, { timeout: 60_000, interval: 200 })
    .toMatch(/^(finished|failed)$/);
  return status();
}
const documentNumbers = async (apiKey: string) =>
  expectStatus(await api.sdk(apiKey).listDocuments({ query: { page_size: 100 } }), 200)
    .items.map((document) => document.document_number)
    .sort();
const forgetLastSync = (companyId: string) =>
  systemEm(api.orm).execute(
    `update fiscal_credentials set last_sync_at = null, last_sync_started_at = clock_timestamp() - interval '61 minutes' where company_id = ?`,
    [companyId],
  );
/** The attempt the sync's mailbox import ended on (1: the session was opened again within it, not by a retry). */
async function importAttempt(companyId: string, startedAt: string): Promise<number> {
  const history = await api.client.workflow.getHandle(`fiscal-sync/${companyId}/${startedAt}`).fetchHistory();
  const events = history.events ?? [];
  const scheduled = events.find(
    (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'importMailboxWindow',
  );
  const started = events.find(
    (event) => String(event.activityTaskStartedEventAttributes?.scheduledEventId) === String(scheduled?.eventId),
  );
  return started?.activityTaskStartedEventAttributes?.attempt ?? 0;
}
const takenCount = (companyId: string) => companyEm(api.orm, companyId).count(FiscalMailboxMessage, {});

describe('ops fiscal mailbox with OAuth2', () => {
  it('registers the client with its secret sealed, replacing the password, and shows it without the secret', async () => {
    const company = await colombianCompany();
    const passwordFile = join(dir, `${company.company.id}.password`);
    writeFileSync(passwordFile, company.password);
    const byPassword = await registerMailbox(company, {
      '--client-id': null,
      '--client-secret-file': null,
      '--token-url': null,
      '--scope': null,
      '--password-file': passwordFile,
    });
    expect(byPassword.code, JSON.stringify(byPassword.stderr)).toBe(0);
    expect(byPassword.stdout.mailbox.oauth2).toBeUndefined();

    const registered = await registerMailbox(company);
    expect(registered.code, JSON.stringify(registered.stderr)).toBe(0);
    const shown = {
      host: '127.0.0.1',
      port: dovecot.port,
      tls: false,
      user: company.user,
      folder: 'INBOX',
      imported_folder: 'Imported',
      oauth2: {
        grant: 'client_credentials',
        token_url: oauth2.tokenUrl,
        client_id: company.clientId,
        scope: MICROSOFT_IMAP_SCOPE,
      },
      updated_at: expect.any(String),
    };
    expect(registered.stdout).toEqual({ company: company.company.id, mailbox: shown });
    const credentials = await ops('fiscal', 'credentials', '--company', company.company.id);
    expect(credentials.stdout.mailbox).toEqual(shown);

    const row = await companyEm(api.orm, company.company.id).findOneOrFail(
      FiscalMailbox,
      {},
      { populate: ['sealedPassword', 'sealedOauthSecret'] },
    );
    expect(row.sealedPassword).toBeNull();
    expect(row.sealedOauthSecret).toMatch(/^v1:/);
    expect(row.sealedOauthSecret).not.toContain(company.clientSecret);
  });

  it("builds Microsoft's token endpoint and scope from --tenant", async () => {
    const company = await colombianCompany();
    const tenant = '8f0e2b1c-3d4a-4e5f-9a6b-7c8d9e0f1a2b';
    const registered = await registerMailbox(company, { '--token-url': null, '--scope': null, '--tenant': tenant });
    expect(registered.code, JSON.stringify(registered.stderr)).toBe(0);
    expect(registered.stdout.mailbox.oauth2).toEqual({
      grant: 'client_credentials',
      token_url: `https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`,
      client_id: company.clientId,
      scope: 'https://outlook.office365.com/.default',
    });
  });

  it('refuses a password with OAuth2, half a client, two endpoints, a multi-tenant alias and a refused endpoint', async () => {
    const company = await colombianCompany();
    const passwordFile = join(dir, `${company.company.id}.password`);
    writeFileSync(passwordFile, company.password);
    const badKey = join(dir, `${company.company.id}.key.json`);
    writeFileSync(badKey, JSON.stringify({ type: 'service_account', client_email: 'a@b.iam.gserviceaccount.com' }));
    const answers = await Promise.all([
      registerMailbox(company, { '--password-file': passwordFile }),
      registerMailbox(company, { '--client-secret-file': null }),
      registerMailbox(company, { '--tenant': 'contoso.onmicrosoft.com' }),
      registerMailbox(company, { '--token-url': null, '--tenant': 'common' }),
      registerMailbox(company, { '--scope': null }),
      registerMailbox(company, { '--token-url': 'http://10.20.30.40/token' }),
      registerMailbox(company, { '--token-url': `${oauth2.url.replace('http://', 'http://user:pw@')}/token` }),
      registerMailbox(company, serviceAccountFlags(badKey)),
    ]);
    expect(answers.map((answer) => [answer.code, answer.stderr.error?.code])).toEqual([
      [2, 'usage'],
      [2, 'usage'],
      [2, 'usage'],
      [2, 'usage'],
      [2, 'usage'],
      [1, 'invalid_url'],
      [2, 'usage'],
      [1, 'service_account_unreadable'],
    ]);
    expect(answers[0]!.stderr.error.message).toContain('--password-file and OAuth2');
    expect(answers[5]!.stderr.error.message).toContain('The URL must use https');
    expect(await companyEm(api.orm, company.company.id).count(FiscalMailbox, {})).toBe(0);
  });
});

describe('a sync over XOAUTH2', () => {
  it("imports the mailbox's invoices with an app's token, and keeps the token for the next sync", async () => {
    const company = await colombianCompany();
    expect((await registerMailbox(company)).code).toBe(0);
    const client = await imap(company.user, company.password);
    try {
      const numbers = await appendInvoices(client, 3);
      const first = await sync(company.apiKey);
      expect(await settled(company.apiKey, first.started_at)).toEqual({
        country: 'COL',
        status: 'finished',
        message: expect.stringMatching(/^Read 3 e-mail\(s\): 3 new document\(s\), 0 already present/),
      });
      expect(await documentNumbers(company.apiKey)).toEqual(numbers);
      expect(await importedCount(client)).toBe(3);

      await forgetLastSync(company.company.id);
      const second = await sync(company.apiKey);
      expect((await settled(company.apiKey, second.started_at)).status).toBe('finished');
      // One token for both syncs, checked by the server at each login.
      expect(oauth2.tokenRequests(company.clientId)).toEqual([
        expect.objectContaining({ grant: 'client_credentials', status: 200 }),
      ]);
      expect(oauth2.introspections(company.clientId).map((check) => check.active)).toEqual([true, true]);
    } finally {
      await client.logout();
    }
  });

  it("imports with a Google service account's own assertion (JWT-bearer), acting as the mailbox", async () => {
    const company = await colombianCompany();
    const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const clientEmail = `dian-sync-${company.company.id.slice(0, 8)}@empresa.iam.gserviceaccount.com`;
    oauth2.addServiceAccount({
      clientEmail,
      publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      scopes: [GOOGLE_SCOPE],
    });
    const privateKey = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    secrets.push(privateKey.split('\n')[1]!);
    const keyFile = join(dir, `${company.company.id}.json`);
    writeFileSync(
      keyFile,
      JSON.stringify({
        type: 'service_account',
        project_id: 'empresa',
        private_key_id: randomBytes(20).toString('hex'),
        private_key: privateKey,
        client_email: clientEmail,
        client_id: '103456789012345678901',
        token_uri: oauth2.tokenUrl,
      }),
    );
    const registered = await registerMailbox(company, serviceAccountFlags(keyFile));
    expect(registered.code, JSON.stringify(registered.stderr)).toBe(0);
    expect(registered.stdout.mailbox.oauth2).toEqual({
      grant: 'jwt_bearer',
      token_url: oauth2.tokenUrl,
      client_id: clientEmail,
      scope: GOOGLE_SCOPE,
    });
    const client = await imap(company.user, company.password);
    try {
      const numbers = await appendInvoices(client, 2);
      const started = await sync(company.apiKey);
      expect(await settled(company.apiKey, started.started_at)).toMatchObject({
        status: 'finished',
        message: expect.stringMatching(/^Read 2 e-mail\(s\): 2 new document\(s\)/),
      });
      expect(await documentNumbers(company.apiKey)).toEqual(numbers);
      expect(oauth2.issued(clientEmail)).toEqual([expect.objectContaining({ username: company.user })]);
    } finally {
      await client.logout();
    }
  });
});

describe('a session ended in the middle of a sync', () => {
  /** Starts a sync of `count` invoices and, once a few are moved, has the server end the session after `meanwhile`. */
  async function interrupted(
    company: Awaited<ReturnType<typeof colombianCompany>>,
    count: number,
    meanwhile: () => void,
  ) {
    const client = await imap(company.user, company.password);
    const numbers = await appendInvoices(client, count);
    const started = await sync(company.apiKey);
    await expect.poll(() => importedCount(client), { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(3);
    meanwhile();
    await dovecot.kick(company.user);
    client.close();
    return { numbers, started };
  }
  const imported = (company: { user: string; password: string }) =>
    withImap(company.user, company.password, importedCount);

  it('whose token expired: a new token, the same session state, nothing lost and nothing imported twice', async () => {
    const company = await colombianCompany();
    expect((await registerMailbox(company)).code).toBe(0);
    const total = 40;
    const { numbers, started } = await interrupted(company, total, () => oauth2.expireTokens(company.clientId));
    expect(await settled(company.apiKey, started.started_at)).toEqual({
      country: 'COL',
      status: 'finished',
      message: expect.stringMatching(
        new RegExp(`^Read ${total} e-mail\\(s\\): ${total} new document\\(s\\), 0 already present`),
      ),
    });
    expect(await documentNumbers(company.apiKey)).toEqual(numbers);
    expect(await imported(company)).toBe(total);
    expect(await takenCount(company.company.id)).toBe(total);
    // The kept token was offered again, refused by the server, and replaced.
    expect(oauth2.tokenRequests(company.clientId).map((request) => request.status)).toEqual([200, 200]);
    expect(oauth2.introspections(company.clientId).map((check) => check.active)).toEqual([true, false, true]);
    expect(await importAttempt(company.company.id, started.started_at)).toBe(1);
  });

  it('whose client was revoked: mailbox_oauth_refused; once reinstated, the rest is imported and nothing twice', async () => {
    const company = await colombianCompany();
    expect((await registerMailbox(company)).code).toBe(0);
    const total = 40;
    const { numbers, started } = await interrupted(company, total, () => oauth2.revoke(company.clientId));
    const failed = await settled(company.apiKey, started.started_at);
    expect(failed).toEqual({
      country: 'COL',
      status: 'failed',
      message: expect.stringMatching(
        new RegExp(
          `^The token endpoint ${oauth2.tokenUrl} refused the client ${company.clientId} ` +
            `\\(invalid_client: AADSTS7000215: Invalid client secret provided\\.\\): ` +
            `check the client id and secret .*\\(mailbox_oauth_refused\\)$`,
        ),
      ),
    });
    const syncs = await ops('fiscal', 'syncs', '--company', company.company.id, '--limit', '1');
    expect(syncs.stdout.syncs[0]).toMatchObject({ status: 'failed', error_code: 'mailbox_oauth_refused' });
    // What was imported before the refusal stays imported and recorded; the rest waits in the inbox.
    const before = await documentNumbers(company.apiKey);
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(total);
    expect(await takenCount(company.company.id)).toBe(before.length);
    // The message whose move the refusal cut is recorded: the next sync moves it without importing it again.
    expect(await imported(company)).toBeGreaterThanOrEqual(before.length - 1);
    expect(await imported(company)).toBeLessThanOrEqual(before.length);

    oauth2.reinstate(company.clientId);
    await forgetLastSync(company.company.id);
    const again = await sync(company.apiKey);
    expect(await settled(company.apiKey, again.started_at)).toMatchObject({
      status: 'finished',
      message: expect.stringMatching(
        new RegExp(
          `^Read ${total - before.length} e-mail\\(s\\): ${total - before.length} new document\\(s\\), 0 already present`,
        ),
      ),
    });
    expect(await documentNumbers(company.apiKey)).toEqual(numbers);
    expect(await imported(company)).toBe(total);
    expect(await takenCount(company.company.id)).toBe(total);
    const runs = await companyEm(api.orm, company.company.id).find(FiscalSyncRun, {}, { orderBy: { startedAt: 1 } });
    expect(runs.map((run) => [run.status, run.errorCode ?? null])).toEqual([
      ['failed', 'mailbox_oauth_refused'],
      ['finished', null],
    ]);
    expect(runs.reduce((sum, run) => sum + run.documentsImported, 0)).toBe(total);
  });
});

describe('logs', () => {
  it('never carry an access token, a client secret or a private key', async () => {
    const tokens = oauth2.issued().map((issued) => issued.token);
    expect(tokens.length).toBeGreaterThan(3);
    const logs = { worker: worker.output(), cli: cliOutput.join('\n') };
    // The scan reads real logs: the worker wrote at trace level about these syncs.
    expect(logs.worker).toContain('mailbox_oauth_refused');
    for (const [source, text] of Object.entries(logs))
      for (const secret of [...tokens, ...secrets])
        expect(text.includes(secret), `${source} shows a secret`).toBe(false);
    const runs = await systemEm(api.orm).find(FiscalSyncRun, { country: 'COL' });
    const stored = JSON.stringify(runs);
    for (const secret of [...tokens, ...secrets]) expect(stored.includes(secret)).toBe(false);
  });
});
