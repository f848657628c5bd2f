// Colombian fiscal sync from a company's IMAP mailbox, against a real Dovecot this file starts: messages are placed
// with IMAP APPEND (their INTERNALDATE inside or outside the window), the mailbox is registered with the operator CLI,
// and syncs run through the API on a worker of this file's own (it trusts the test CA of Dovecot's certificate).
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { expectStatus } from '@accounts-payable/client';
import { strToU8, zipSync } from 'fflate';
import { ImapFlow } from 'imapflow';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FiscalMailboxMessage } from '../../db/fiscal/fiscal-mailbox-message.entity.ts';
import { FiscalMailbox } from '../../db/fiscal/fiscal-mailbox.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { freePort } from '../../platform/ports.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeServerCertificate, type TestCertificates } from '../harness/certificates.ts';
import { startDovecot, type Dovecot } from '../harness/dovecot.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  dianMailbox,
  FAST_FISCAL_SYNC_TIMING,
  latestRun,
  registerCredentials,
  uniqueNit,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { spawnWorker, type WorkerProcess } from '../helpers/processes.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

// Served only by the worker this file starts, with the test CA in NODE_EXTRA_CA_CERTS.
const TASK_QUEUE = `fiscal-imap-${process.pid}`;
const DAY = 86_400_000;
/** The worker's per-message cap, small enough for a test message to pass it. */
const MESSAGE_CAP = 256 * 1024;
const ATTACHED_DOCUMENT = readFileSync(
  new URL('../fixtures/dian/constructed-attached-document-invoice.xml', import.meta.url),
);
const CREDIT_NOTE = readFileSync(new URL('../fixtures/dian/stenfrank-creditnote_signed_dian_v2.xml', import.meta.url));

let dir: string;
let certificates: TestCertificates;
let dovecot: Dovecot;
const workers: WorkerProcess[] = [];
let api: TestApi;

beforeAll(async () => {
  dir = tempDir('ap-imap-test-');
  certificates = makeServerCertificate(dir, '127.0.0.1');
  dovecot = await startDovecot({ tls: certificates });
  const worker = startWorker();
  api = await startTestApi({ taskQueue: TASK_QUEUE, config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
  await worker.ready;
});
afterAll(async () => {
  await Promise.all(workers.map((worker) => worker.kill()));
  await api?.close();
  await dovecot?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A worker process on this file's task queue, trusting the test CA, with a small per-message cap. */
function startWorker(): WorkerProcess {
  const worker = spawnWorker(TASK_QUEUE, {
    NODE_EXTRA_CA_CERTS: certificates.caFile,
    INTAKE_MAX_MESSAGE_BYTES: String(MESSAGE_CAP),
  });
  workers.push(worker);
  return worker;
}

/** A Colombian company set up for DIAN sync, with a mailbox user of its own on the Dovecot. */
async function colombianCompany() {
  const made = await makeCompany(api.orm, { country: 'COL' });
  await registerCredentials(api.orm, made.company, {
    dianForwarding: true,
    dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
  });
  const user = `dian-${made.company.id}`;
  const password = randomBytes(12).toString('hex');
  dovecot.addUser(user, password);
  return { ...made, user, password };
}

/** Registers the mailbox with `ops fiscal mailbox`, as an operator would. */
async function registerMailbox(companyId: string, user: string, password: string, ...flags: string[]) {
  const passwordFile = join(dir, `${companyId}.password`);
  writeFileSync(passwordFile, `${password}\n`);
  const defaults: Record<string, string> = {
    '--host': dovecot.host,
    '--port': String(dovecot.port),
    '--tls': 'false',
    '--user': user,
    '--password-file': passwordFile,
  };
  for (let index = 0; index < flags.length; index += 2) defaults[flags[index]!] = flags[index + 1]!;
  return ops('fiscal', 'mailbox', '--company', companyId, ...Object.entries(defaults).flat());
}

/** A real IMAP client logged in as the company's mailbox user (the test's own, trusting the test CA). */
async function imap(user: string, password: string): Promise<ImapFlow> {
  return dovecot.login(user, password, certificates.ca);
}

/** Places a message as delivery would: IMAP APPEND with the INTERNALDATE it arrived at. */
async function append(
  client: ImapFlow,
  mail: { messageId: string; receivedAt: Date; attachments: { filename: string; content: Buffer | Uint8Array }[] },
) {
  const raw = await new MailComposer({
    from: 'Facturación Proveedor <facturacion@proveedor.example.co>',
    to: 'dian@empresa.example.co',
    subject: `Factura electrónica ${mail.messageId}`,
    messageId: mail.messageId,
    date: mail.receivedAt,
    text: 'Adjuntamos la factura electrónica.',
    attachments: mail.attachments.map((attachment) => ({ ...attachment, content: Buffer.from(attachment.content) })),
  })
    .compile()
    .build();
  await client.append('INBOX', raw, [], mail.receivedAt);
}

/** The Message-IDs in a folder of the mailbox. */
async function messageIds(client: ImapFlow, folder: string): Promise<string[]> {
  const lock = await client.getMailboxLock(folder);
  try {
    const ids: string[] = [];
    if (client.mailbox && client.mailbox.exists > 0)
      for await (const message of client.fetch('1:*', { envelope: true })) ids.push(message.envelope!.messageId!);
    return ids.sort();
  } finally {
    lock.release();
  }
}

const supplierZip = Buffer.from(
  zipSync({
    'ad09001234560002600000123.xml': new Uint8Array(ATTACHED_DOCUMENT),
    'fv09001234560002600000123.pdf': strToU8('%PDF-1.4\n'),
  }),
);

const sync = async (apiKey: string) => expectStatus(await api.sdk(apiKey).startFiscalSync(), 202);
async function status(apiKey: string, startedAt: string) {
  const body = expectStatus(await api.sdk(apiKey).getFiscalSyncStatus({ query: { started_at: startedAt } }), 200);
  if (body.country !== 'COL') throw new Error(`Not a Colombian status: ${JSON.stringify(body)}`);
  return body;
}
async function settled(apiKey: string, startedAt: string) {
  await expect
    .poll(async () => (await status(apiKey, startedAt)).status, { timeout: 60_000, interval: 200 })
    .toMatch(/^(finished|failed)$/);
  return status(apiKey, startedAt);
}
const documentNumbers = async (apiKey: string) =>
  expectStatus(await api.sdk(apiKey).listDocuments(), 200).items.map((document) => document.document_number);
/** Lets the company sync the same window again now: as if it never synchronised, and its last request was long ago. */
const forgetLastSync = (companyId: string) =>
  systemEm(api.orm).execute(
    `update fiscal_credentials set last_sync_at = null, last_sync_started_at = clock_timestamp() - interval '61 minutes' where company_id = ?`,
    [companyId],
  );

describe('ops fiscal mailbox', () => {
  it('registers the mailbox with its password sealed, and fiscal credentials shows it without the password', async () => {
    const { company, user, password } = await colombianCompany();
    const registered = await registerMailbox(company.id, user, password, '--folder', 'DIAN');
    expect(registered.code, JSON.stringify(registered.stderr)).toBe(0);
    const shown = {
      host: '127.0.0.1',
      port: dovecot.port,
      tls: false,
      user,
      folder: 'DIAN',
      imported_folder: 'Imported',
      updated_at: expect.any(String),
    };
    expect(registered.stdout).toEqual({ company: company.id, mailbox: shown });
    const credentials = await ops('fiscal', 'credentials', '--company', company.id);
    expect(credentials.stdout.mailbox).toEqual(shown);
    expect(JSON.stringify(credentials.stdout)).not.toContain(password);

    const row = await companyEm(api.orm, company.id).findOneOrFail(FiscalMailbox, {}, { populate: ['sealedPassword'] });
    expect(row.sealedPassword).toMatch(/^v1:/);
    expect(row.sealedPassword).not.toContain(password);
  });

  it('refuses a Mexican company, a bad port or TLS flag, and a missing password file', async () => {
    const { company, user, password } = await colombianCompany();
    const mexican = await makeCompany(api.orm, { country: 'MEX' });
    // Usage errors exit with 2, refusals with 1.
    const answers = await Promise.all([
      registerMailbox(mexican.company.id, user, password),
      registerMailbox(company.id, user, password, '--port', '99999'),
      registerMailbox(company.id, user, password, '--tls', 'yes'),
      registerMailbox(company.id, user, password, '--password-file', join(dir, 'missing')),
    ]);
    expect(answers.map((answer) => [answer.code, answer.stderr.error?.code])).toEqual([
      [1, 'country_mismatch'],
      [2, 'usage'],
      [2, 'usage'],
      [1, 'file_unreadable'],
    ]);
    expect(await companyEm(api.orm, company.id).count(FiscalMailbox, {})).toBe(0);
  });
});

describe('a sync from the IMAP mailbox', () => {
  it("imports the window's messages once, moves them to Imported, and leaves the others alone", async () => {
    const { company, apiKey, user, password } = await colombianCompany();
    expect((await registerMailbox(company.id, user, password)).code).toBe(0);
    const client = await imap(user, password);
    try {
      await append(client, {
        messageId: '<factura-1@proveedor.example.co>',
        receivedAt: new Date(Date.now() - 3 * DAY),
        attachments: [{ filename: 'z09001234560002600000123.zip', content: supplierZip }],
      });
      await append(client, {
        messageId: '<sin-adjuntos@proveedor.example.co>',
        receivedAt: new Date(Date.now() - 2 * DAY),
        attachments: [{ filename: 'logo.png', content: strToU8('png') }],
      });
      // 46 days ago: before the first sync's 45-day window.
      await append(client, {
        messageId: '<antigua@proveedor.example.co>',
        receivedAt: new Date(Date.now() - 46 * DAY - 3_600_000),
        attachments: [{ filename: 'nc.xml', content: CREDIT_NOTE }],
      });

      const first = await sync(apiKey);
      const done = await settled(apiKey, first.started_at);
      expect(done).toEqual({
        country: 'COL',
        status: 'finished',
        message: expect.stringMatching(/^Read 2 e-mail\(s\): 1 new document\(s\), 0 already present/),
      });
      expect(await documentNumbers(apiKey)).toEqual(['SETP990000008']);
      expect(await messageIds(client, 'INBOX')).toEqual(['<antigua@proveedor.example.co>']);
      expect(await messageIds(client, 'Imported')).toEqual([
        '<factura-1@proveedor.example.co>',
        '<sin-adjuntos@proveedor.example.co>',
      ]);
      const taken = await companyEm(api.orm, company.id).find(FiscalMailboxMessage, {}, { orderBy: { messageId: 1 } });
      expect(taken.map((row) => [row.messageId, row.sha256.length, row.runId])).toEqual([
        ['<factura-1@proveedor.example.co>', 64, (await latestRun(api.orm, company.id)).id],
        ['<sin-adjuntos@proveedor.example.co>', 64, (await latestRun(api.orm, company.id)).id],
      ]);

      // Someone moves the invoice back into the inbox; the same window is read again: it is passed over, and moved.
      const lock = await client.getMailboxLock('Imported');
      try {
        expect(await client.messageMove('1', 'INBOX')).toBeTruthy();
      } finally {
        lock.release();
      }
      await forgetLastSync(company.id);
      const second = await sync(apiKey);
      expect(await settled(apiKey, second.started_at)).toMatchObject({
        status: 'finished',
        message: expect.stringMatching(/^Read 0 e-mail\(s\): 0 new document\(s\), 0 already present/),
      });
      expect(await documentNumbers(apiKey)).toEqual(['SETP990000008']);
      expect(await messageIds(client, 'INBOX')).toEqual(['<antigua@proveedor.example.co>']);
      expect(await companyEm(api.orm, company.id).count(FiscalMailboxMessage, {})).toBe(2);
    } finally {
      await client.logout();
    }
  });

  it('refuses a message past the per-message cap and leaves it in the inbox', async () => {
    const { company, apiKey, user, password } = await colombianCompany();
    expect((await registerMailbox(company.id, user, password)).code).toBe(0);
    const client = await imap(user, password);
    try {
      await append(client, {
        messageId: '<escaneo-grande@proveedor.example.co>',
        receivedAt: new Date(Date.now() - DAY),
        attachments: [{ filename: 'escaneo.zip', content: randomBytes(MESSAGE_CAP) }],
      });
      const started = await sync(apiKey);
      expect(await settled(apiKey, started.started_at)).toMatchObject({
        status: 'finished',
        message: expect.stringMatching(/^Read 1 e-mail\(s\): 0 new document\(s\), .* 1 entr\(ies\) skipped$/),
      });
      expect((await latestRun(api.orm, company.id)).details).toMatchObject({ skipped: { too_large: 1 } });
      expect(await messageIds(client, 'INBOX')).toEqual(['<escaneo-grande@proveedor.example.co>']);
      expect(await companyEm(api.orm, company.id).count(FiscalMailboxMessage, {})).toBe(0);
    } finally {
      await client.logout();
    }
  });

  it('reads over implicit TLS when the server certificate is trusted', async () => {
    const { company, apiKey, user, password } = await colombianCompany();
    const registered = await registerMailbox(
      company.id,
      user,
      password,
      '--port',
      String(dovecot.tlsPort),
      '--tls',
      'true',
    );
    expect(registered.code).toBe(0);
    const client = await imap(user, password);
    try {
      await append(client, {
        messageId: '<factura-tls@proveedor.example.co>',
        receivedAt: new Date(Date.now() - DAY),
        attachments: [{ filename: 'factura.zip', content: supplierZip }],
      });
    } finally {
      await client.logout();
    }
    const started = await sync(apiKey);
    expect((await settled(apiKey, started.started_at)).status).toBe('finished');
    expect(await documentNumbers(apiKey)).toEqual(['SETP990000008']);
  });
});

describe('a company without an IMAP mailbox', () => {
  it('is read from its Maildir folder (DIAN_MAILBOX_DIR), as before', async () => {
    const { company, apiKey } = await colombianCompany();
    dianMailbox.deliver(company.id, {
      subject: 'Factura SETP990000008',
      attachments: [{ name: 'z09001234560002600000123.zip', data: supplierZip }],
      receivedAt: new Date(Date.now() - 2 * DAY),
    });
    const started = await sync(apiKey);
    expect(await settled(apiKey, started.started_at)).toMatchObject({
      status: 'finished',
      message: expect.stringMatching(/^Read 1 e-mail\(s\): 1 new document\(s\)/),
    });
    expect(await documentNumbers(apiKey)).toEqual(['SETP990000008']);
  });
});

describe('a mailbox that cannot be read fails the sync with what to fix', () => {
  const failure = async (flags: (user: string, password: string) => Promise<string[]> | string[]) => {
    const { company, apiKey, user, password } = await colombianCompany();
    const [registeredUser, registeredPassword, ...rest] = await flags(user, password);
    expect((await registerMailbox(company.id, registeredUser!, registeredPassword!, ...rest)).code).toBe(0);
    const started = await sync(apiKey);
    const final = await settled(apiKey, started.started_at);
    expect(final.status).toBe('failed');
    return { message: final.message, code: (await latestRun(api.orm, company.id)).errorCode };
  };

  it('a wrong password: mailbox_auth_failed', async () => {
    expect(await failure((user) => [user, 'not-the-password'])).toEqual({
      code: 'mailbox_auth_failed',
      message: expect.stringMatching(
        /^The mail server 127\.0\.0\.1:\d+ refused the login of dian-.*\(mailbox_auth_failed\)$/,
      ),
    });
  });

  it('a folder the mailbox does not have: mailbox_folder_missing', async () => {
    expect(await failure((user, password) => [user, password, '--folder', 'Facturas'])).toEqual({
      code: 'mailbox_folder_missing',
      message: expect.stringContaining('has no folder "Facturas"'),
    });
  });

  it('TLS asked of the plain port: mailbox_tls_failed', async () => {
    expect(await failure((user, password) => [user, password, '--tls', 'true'])).toEqual({
      code: 'mailbox_tls_failed',
      message: expect.stringContaining(`No TLS connection with the mail server 127.0.0.1:${dovecot.port}`),
    });
  });

  it('a server that does not answer: mailbox_unreachable after three attempts', async () => {
    const closed = String(await freePort());
    expect(await failure((user, password) => [user, password, '--port', closed])).toEqual({
      code: 'mailbox_unreachable',
      // GET /fiscal-sync/status names the code after the message.
      message: `The mail server 127.0.0.1:${closed} could not be reached (ECONNREFUSED), attempt 3 of 3 (mailbox_unreachable)`,
    });
  });
});

describe('a worker killed in the middle of the import', () => {
  it('loses nothing and takes no message twice when another worker retries the import', async () => {
    const { company, apiKey, user, password } = await colombianCompany();
    expect((await registerMailbox(company.id, user, password)).code).toBe(0);
    const client = await imap(user, password);
    const total = 60;
    const ids = Array.from(
      { length: total },
      (_, index) => `<factura-${String(index).padStart(2, '0')}@proveedor.example.co>`,
    );
    try {
      for (const [index, messageId] of ids.entries())
        await append(client, {
          messageId,
          receivedAt: new Date(Date.now() - DAY - index * 60_000),
          attachments: [{ filename: 'factura.zip', content: supplierZip }],
        });
      // The imported folder is created at the first move.
      const imported = async () => {
        const folders = await client.list();
        if (!folders.some((folder) => folder.path === 'Imported')) return 0;
        const status = await client.status('Imported', { messages: true });
        return status ? (status.messages ?? 0) : 0;
      };

      const started = await sync(apiKey);
      await expect.poll(imported, { timeout: 30_000, interval: 20 }).toBeGreaterThanOrEqual(3);
      await workers.at(-1)!.kill('SIGKILL');
      // Killed mid-way: what it had not moved is still in the inbox.
      expect(await imported()).toBeLessThan(total);

      await startWorker().ready;
      expect(await settled(apiKey, started.started_at)).toMatchObject({
        status: 'finished',
        message: expect.stringMatching(/^Read \d+ e-mail\(s\): [01] new document\(s\)/),
      });
      expect(await documentNumbers(apiKey)).toEqual(['SETP990000008']);
      expect(await messageIds(client, 'INBOX')).toEqual([]);
      expect(await messageIds(client, 'Imported')).toEqual(ids);
      const taken = await companyEm(api.orm, company.id).find(FiscalMailboxMessage, {});
      expect(taken.map((row) => row.messageId).sort()).toEqual(ids);
    } finally {
      await client.logout();
    }
  });
});
