// One bad file never holds the others back: a mail whose AttachedDocument carries U+0000 (which PostgreSQL cannot
// store) between two good ones is refused with the element named, the sync finishes with the others imported, and the
// refusal is in the intake log the operator lists, once, however often the file is seen. U+0000 in a name (a ZIP
// entry's, an RFC 2231 attachment's) or in what the parser quotes is stored escaped, and the sync moves its window on.
// A file reads the same whatever brings it (`ops documents import`, a mailbox, a SAT package): UTF-8 with or without
// its mark, UTF-16 LE or BE with it, a declared code page; another declared encoding is refused, naming it.
import { mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { strToU8, zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { recordRefusals } from '../../services/fiscal-sync/intake-refusals.ts';
import { writeCfdiInvoices } from '../helpers/cfdi-files.ts';
import { makeCompany } from '../helpers/companies.ts';
import { dianInvoiceXml } from '../helpers/dian-invoices.ts';
import {
  dianMailbox,
  FAST_FISCAL_SYNC_TIMING,
  latestRun,
  registerCredentials,
  satProvider,
  uniqueNit,
  uniqueRfc,
  syncToTheEnd,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { rfc2231Message } from '../helpers/mail-messages.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const attachedDocument = readFileSync(new URL('dian/constructed-attached-document-invoice.xml', FIXTURES), 'utf8');
const creditNote = readFileSync(new URL('dian/stenfrank-creditnote_signed_dian_v2.xml', FIXTURES));

const DAY = 86_400_000;
let api: TestApi;
let work: string;
beforeAll(async () => {
  work = tempDir('ap-intake-log-');
  api = await startTestApi({ config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
});
afterAll(async () => {
  await api.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function colombianCompany() {
  const made = await makeCompany(api.orm, { country: 'COL' });
  await registerCredentials(api.orm, made.company, {
    dianForwarding: true,
    dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
  });
  return made;
}

const documentNumbers = async (apiKey: string) =>
  expectStatus(await api.sdk(apiKey).listDocuments({ query: { page_size: 100 } }), 200)
    .items.map((document) => document.document_number)
    .sort();

type Refused = { file: string; reason: string; detail: string };
const intakeLog = async (companyId: string): Promise<Refused[]> =>
  (await ops('fiscal', 'intake', '--company', companyId, '--limit', '1000')).stdout.refused;

/** Writes a raw message into the company's Maildir, arrived `daysAgo`. */
function deliverRaw(companyId: string, name: string, raw: string | Uint8Array, arrived: Date): void {
  const folder = join(dianMailbox.folder(companyId), 'new');
  mkdirSync(folder, { recursive: true });
  const path = join(folder, name);
  writeFileSync(path, raw);
  utimesSync(path, arrived, arrived);
}

const invoice = (documentNumber: string, nit = '900123456') =>
  dianInvoiceXml({
    documentNumber,
    supplier: { name: 'Compañía Proveedora S.A.S.', nit },
    lines: [{ description: 'Servicio de facturación', quantity: 1, unitPriceCents: 100_000n }],
  }).xml;

describe('the intake log', () => {
  it('records a file with a character XML forbids, and the sync imports the mail before and after it', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    await registerCredentials(api.orm, company, {
      dianForwarding: true,
      dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
    });
    const poisoned = attachedDocument.replace('FACTURADOR DE EJEMPLO', 'FACTURADOR\u0000DE EJEMPLO');
    expect(poisoned).not.toBe(attachedDocument);
    const day = 86_400_000;
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'nc.xml', data: creditNote }],
      receivedAt: new Date(Date.now() - 3 * day),
    });
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'z-envenenada.zip', data: zipSync({ 'ad-envenenada.xml': Buffer.from(poisoned) }) }],
      receivedAt: new Date(Date.now() - 2 * day),
    });
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'z-buena.zip', data: zipSync({ 'ad-buena.xml': Buffer.from(attachedDocument) }) }],
      receivedAt: new Date(Date.now() - day),
    });

    expect(await syncToTheEnd(api.sdk(apiKey))).toMatchObject({ status: 'finished' });
    const documents = expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;
    expect(documents.map((document) => document.document_number).sort()).toEqual(['NC3', 'SETP990000008']);

    const listed = await ops('fiscal', 'intake', '--company', company.id);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toEqual({
      company: company.id,
      refused: [
        {
          file: expect.stringMatching(/z-envenenada\.zip\/ad-envenenada\.xml$/),
          reason: 'invalid_document',
          detail: expect.stringContaining('the character U+0000 is not allowed in XML'),
          recorded_at: expect.any(String),
        },
      ],
    });
    expect(listed.stdout.refused[0].detail).toContain('cbc:RegistrationName');

    // Seen again (a re-run, another attempt), the same file adds nothing; other bytes under that name are another file.
    const again = { name: listed.stdout.refused[0].file, reason: 'invalid_document', bytes: Buffer.from(poisoned) };
    await recordRefusals(api.orm, company.id, [again, again]);
    await recordRefusals(api.orm, company.id, [{ ...again, bytes: Buffer.from(`${poisoned} `) }]);
    expect((await ops('fiscal', 'intake', '--company', company.id)).stdout.refused).toHaveLength(2);

    // Another company sees none of it.
    const other = await makeCompany(api.orm, { country: 'COL' });
    expect((await ops('fiscal', 'intake', '--company', other.company.id)).stdout.refused).toEqual([]);
  });

  it('stores names and parser messages holding U+0000 escaped, imports what follows, and moves the window', async () => {
    const { company, apiKey } = await colombianCompany();
    const at = (minutes: number) => new Date(Date.now() - 2 * DAY + minutes * 60_000);
    const broken = '<?xml version="1.0"?><Invoice><cbc:ID>1</cbc:ID>';
    // The attachment named with RFC 2231: one broken, one a good invoice.
    deliverRaw(company.id, '1.M1P1.nul-rfc2231', rfc2231Message('fact%00ura.xml', broken), at(1));
    deliverRaw(company.id, '2.M1P1.nul-rfc2231-buena', rfc2231Message('fact%00ura-2.xml', invoice('NUL-1')), at(2));
    // A ZIP entry named with U+0000: one broken, one a good invoice.
    dianMailbox.deliver(company.id, {
      attachments: [
        {
          name: 'z-nul.zip',
          data: zipSync({ 'fact\u0000ura.xml': strToU8(broken), 'fact\u0000ura-2.xml': strToU8(invoice('NUL-2')) }),
        },
      ],
      receivedAt: at(3),
    });
    // A tag name holding U+0000: the refusal names the character and where it stands.
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'etiqueta.xml', data: '<Invoice><cbc:I\u0000D>1</cbc:I\u0000D></Invoice>' }],
      receivedAt: at(4),
    });
    // And a good invoice after them all.
    dianMailbox.deliver(company.id, {
      attachments: [{ name: 'z-buena.zip', data: zipSync({ 'ad-buena.xml': Buffer.from(attachedDocument) }) }],
      receivedAt: at(5),
    });

    const final = await syncToTheEnd(api.sdk(apiKey));
    expect(final).toMatchObject({ status: 'finished', message: expect.stringMatching(/^Read 5 e-mail\(s\): 3 new/) });
    expect(await documentNumbers(apiKey)).toEqual(['NUL-1', 'NUL-2', 'SETP990000008']);

    const refused = await intakeLog(company.id);
    const about = (file: RegExp) => refused.filter((refusal) => file.test(refusal.file));
    expect(refused).toHaveLength(3);
    expect(about(/nul-rfc2231\/fact\\x00ura\.xml$/)).toEqual([
      expect.objectContaining({ reason: 'invalid_document', detail: expect.stringMatching(/^malformed_xml: /) }),
    ]);
    expect(about(/z-nul\.zip\/fact\\x00ura\.xml$/)).toEqual([
      expect.objectContaining({ reason: 'invalid_document', detail: expect.stringMatching(/^malformed_xml: /) }),
    ]);
    expect(about(/etiqueta\.xml$/)).toEqual([
      expect.objectContaining({
        reason: 'invalid_document',
        detail: expect.stringContaining('Invoice: the character U+0000 is not allowed in XML'),
      }),
    ]);

    // The documents' logs keep the names as stored.
    const logged = await companyEm(api.orm, company.id).find(ActivityLog, { event: 'document.created' });
    const names = logged.map((log) => log.metadata['file_name']);
    expect(names).toHaveLength(3);
    expect(names).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/nul-rfc2231-buena\/fact\\x00ura-2\.xml$/),
        expect.stringMatching(/z-buena\.zip\/ad-buena\.xml$/),
        expect.stringMatching(/z-nul\.zip\/fact\\x00ura-2\.xml$/),
      ]),
    );

    // The window moved on: the next sync has nothing left to read today.
    expect((await latestRun(api.orm, company.id)).status).toBe('finished');
    await systemEm(api.orm).execute(
      `update fiscal_credentials set last_sync_started_at = clock_timestamp() - interval '61 minutes' where company_id = ?`,
      [company.id],
    );
    const again = await api.sdk(apiKey).startFiscalSync();
    expect({ status: again.status, code: (again.body as { code?: string }).code }).toEqual({
      status: 422,
      code: 'dian_sync_window_empty',
    });
  });

  it('reads UTF-8 and UTF-16 files alike through the CLI, the mailbox and a SAT package', async () => {
    // A supplier of its own for each, so that each name read is its file's.
    let nit = 900_200_000;
    const text = (documentNumber: string) => invoice(documentNumber, String(++nit));
    const utf16 = (xml: string) =>
      Buffer.from(`\uFEFF${xml.replace('encoding="UTF-8"', 'encoding="UTF-16"')}`, 'utf16le');
    const kinds = {
      'utf16le.xml': (n: string) => utf16(text(n)),
      'utf16be.xml': (n: string) => utf16(text(n)).swap16(),
      'utf8bom.xml': (n: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text(n))]),
      'utf8.xml': (n: string) => Buffer.from(text(n)),
      'latin1.xml': (n: string) => Buffer.from(text(n).replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1'),
      'ebcdic.xml': (n: string) => Buffer.from(text(n).replace('encoding="UTF-8"', 'encoding="EBCDIC-CP-US"')),
    };
    const read = Object.keys(kinds).filter((name) => name !== 'ebcdic.xml');
    const build = (prefix: string) =>
      Object.fromEntries(Object.entries(kinds).map(([name, make]) => [name, make(`${prefix}-${name.split('.')[0]}`)]));

    // The CLI.
    const cli = await colombianCompany();
    const files = Object.entries(build('CLI')).map(([name, bytes]) => {
      const path = join(work, name);
      writeFileSync(path, bytes);
      return path;
    });
    const imported = await ops('documents', 'import', '--company', cli.company.id, ...files);
    expect(imported.code).toBe(0);
    expect(
      (imported.stdout.files as { file: string; outcome: string; code?: string }[]).map(({ file, outcome, code }) => [
        file.split('/').pop(),
        outcome,
        code ?? null,
      ]),
    ).toEqual([...read.map((name) => [name, 'imported', null]), ['ebcdic.xml', 'refused', 'unsupported_encoding']]);
    expect(await documentNumbers(cli.apiKey)).toEqual(read.map((name) => `CLI-${name.split('.')[0]}`).sort());
    for (const { reference } of imported.stdout.documents as { reference: string }[])
      expect(
        expectStatus(await api.sdk(cli.apiKey).getDocument({ params: { reference } }), 200).beneficiary?.name,
      ).toBe('Compañía Proveedora S.A.S.');

    // The mailbox: half as attachments, half in a ZIP.
    const mailbox = await colombianCompany();
    const mailed = Object.entries(build('MAIL'));
    dianMailbox.deliver(mailbox.company.id, {
      attachments: mailed.slice(0, 3).map(([name, data]) => ({ name, data, contentType: 'application/xml' })),
      receivedAt: new Date(Date.now() - 2 * DAY),
    });
    dianMailbox.deliver(mailbox.company.id, {
      attachments: [{ name: 'z-codificaciones.zip', data: zipSync(Object.fromEntries(mailed.slice(3))) }],
      receivedAt: new Date(Date.now() - DAY),
    });
    expect(await syncToTheEnd(api.sdk(mailbox.apiKey))).toMatchObject({ status: 'finished' });
    expect(await documentNumbers(mailbox.apiKey)).toEqual(read.map((name) => `MAIL-${name.split('.')[0]}`).sort());
    expect(await intakeLog(mailbox.company.id)).toEqual([
      expect.objectContaining({
        file: expect.stringMatching(/z-codificaciones\.zip\/ebcdic\.xml$/),
        reason: 'invalid_document',
        detail: expect.stringMatching(/^unsupported_encoding: .*"EBCDIC-CP-US"/),
      }),
    ]);

    // A SAT package: CFDI in UTF-16 LE and BE.
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    const rfc = uniqueRfc();
    await registerCredentials(api.orm, company, { ciecStatus: 'valid', rfc });
    const [le, be] = writeCfdiInvoices(2, 71_000).contents.map((xml) => utf16(xml));
    writeFileSync(join(work, 'paquete-utf16.zip'), zipSync({ 'le.xml': le!, 'be.xml': be!.swap16() }));
    await satProvider.behave(rfc, { polls: 1, packages: [{ path: join(work, 'paquete-utf16.zip') }] });
    expect(await syncToTheEnd(api.sdk(apiKey))).toMatchObject({ status: 'finished' });
    expect(await documentNumbers(apiKey)).toHaveLength(2);
    expect(await intakeLog(company.id)).toEqual([]);
  });

  it('refuses a limit out of range', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const refused = await ops('fiscal', 'intake', '--company', company.id, '--limit', '0');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr.error).toMatchObject({ code: 'usage' });
  });
});
