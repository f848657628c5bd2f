// Hostile mail and a huge SAT package against a worker run as production runs it (its own process, production heap
// flags, default caps). The mail: bombs, lying sizes, nested archives, overlapping entries, a huge quoted-printable
// attachment and a 600 MB XML, between two good invoices. The package: 240 MB around two CFDI, which a worker holding
// the download whole (with its concatenation) would pass its budget on.
// Each sync finishes with its good documents imported, each hostile file is in the intake log with its reason, and the
// worker's peak resident memory stays under its 400 MB budget. Every input is built here.
// Then what a mailbox item inflated whole used to cost: a ZIP of 60 XML entries of 20 MiB, and nested ZIPs inflating to
// 2,000 MiB of XML entries just under the XML cap, each between good invoices, from the Maildir and from an IMAP
// mailbox, each on a fresh worker so that its peak is its own. Last, XML at the parser's caps: a valid invoice of 10 MB and
// 40,000 elements, imported, beside hostile files of as many elements (UTF-8 and UTF-16) or of 1 MiB texts.
import { execFile } from 'node:child_process';
import { readFileSync, rmSync, truncateSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { expectStatus } from '@accounts-payable/client';
import { zipSync } from 'fflate';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../platform/temp-dir.ts';
import { startDovecot } from '../harness/dovecot.ts';
import { makeCompany } from '../helpers/companies.ts';
import { dianInvoiceXml } from '../helpers/dian-invoices.ts';
import {
  dianMailbox,
  FAST_FISCAL_SYNC_TIMING,
  registerCredentials,
  satProvider,
  uniqueNit,
  uniqueRfc,
  syncToTheEnd,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { OVERLAPPING_ZIP_SCRIPT } from '../helpers/overlapping-zip.ts';
import { peakResidentBytes, spawnWorker, type WorkerProcess } from '../helpers/processes.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const exec = promisify(execFile);
const TASK_QUEUE = `intake-memory-${process.pid}`;
const MB = 1024 * 1024;
const WORKER_BUDGET = 400 * MB;
const DAY = 86_400_000;
const FIXTURES = new URL('../fixtures/', import.meta.url);
const ATTACHED = readFileSync(new URL('dian/constructed-attached-document-invoice.xml', FIXTURES));
const CREDIT_NOTE = readFileSync(new URL('dian/stenfrank-creditnote_signed_dian_v2.xml', FIXTURES));

let work: string;
let worker: WorkerProcess;
let api: TestApi;

beforeAll(async () => {
  work = tempDir('ap-intake-memory-');
  worker = spawnWorker(TASK_QUEUE);
  api = await startTestApi({ taskQueue: TASK_QUEUE, config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
  await worker.ready;
});
afterAll(async () => {
  await worker?.kill();
  await api?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Runs a Python script in the work directory; answers what it wrote on stdout. */
async function python(script: string, ...args: string[]): Promise<Buffer> {
  const { stdout } = await exec('python3', ['-c', script, ...args], {
    cwd: work,
    encoding: 'buffer',
    maxBuffer: 64 * MB,
  });
  return stdout;
}

const HOSTILE = {
  // 1 GB of zeros in one entry, deflated to about 1 MB; then the same archive declaring 2,000 bytes.
  bomb: String.raw`
import struct, sys, zipfile
with zipfile.ZipFile('bomb.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    with z.open('bomb.xml', 'w', force_zip64=True) as entry:
        chunk = bytes(1 << 20)
        for _ in range(1024):
            entry.write(chunk)
data = bytearray(open('bomb.zip', 'rb').read())
struct.pack_into('<I', data, 22, 2000)
directory = struct.unpack_from('<I', data, data.rfind(b'PK\x05\x06') + 16)[0]
struct.pack_into('<I', data, directory + 24, 2000)
open('liar.zip', 'wb').write(data)`,
  // 16 archives of 16 entries of 8 MB of zeros each, in one archive: 2 GB once inflated.
  nested: String.raw`
import io, zipfile
chunk = bytes(8 << 20)
with zipfile.ZipFile('nested.zip', 'w', zipfile.ZIP_DEFLATED) as outer:
    for n in range(16):
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z:
            for m in range(16):
                z.writestr('ceros-%02d.xml' % m, chunk)
        outer.writestr('interno-%02d.zip' % n, inner.getvalue())`,
  // A SAT package of 240 MB: a CFDI, 20 stored (uncompressed) entries of 12 MB, a CFDI. Its runs of zeros are made
  // holes of the file, so that it takes little disk here; the worker downloads every byte.
  satPackage: String.raw`
import subprocess, sys, zipfile
with zipfile.ZipFile('paquete.zip', 'w', zipfile.ZIP_STORED) as z:
    z.write(sys.argv[1], 'primero.xml')
    for n in range(20):
        z.writestr('anexo-%02d.pdf' % n, bytes(12 << 20))
    z.write(sys.argv[2], 'ultimo.xml')
subprocess.run(['fallocate', '--dig-holes', 'paquete.zip'], check=True)`,
  // argv[3] ZIP entries named argv[4] % n, each argv[2] bytes of XML-looking text (a root element around spaces),
  // written to argv[1]. The entry is deflated once and its bytes written for each, so that 1.2 GB takes no time.
  sameEntries: String.raw`
import struct, sys, zlib
path, size, count, pattern = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
head, tail = b'<?xml version="1.0"?><Invoice>', b'</Invoice>'
data = head + b' ' * (size - len(head) - len(tail)) + tail
deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
packed = deflate.compress(data) + deflate.flush()
crc = zlib.crc32(data)
out, central = bytearray(), bytearray()
for n in range(count):
    name = (pattern % n).encode()
    offset = len(out)
    out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 20, 0, 8, 0, 0, crc, len(packed), size, len(name), 0) + name + packed
    central += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 20, 20, 0, 8, 0, 0, crc, len(packed), size, len(name),
                           0, 0, 0, 0, 0, offset) + name
start = len(out)
out += central + struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, count, count, len(central), start, 0)
open(path, 'wb').write(out)`,
  // 20 ZIPs (stored) of argv[1] in one: argv[2] once inflated.
  nestedOf: String.raw`
import sys, zipfile
inner = open(sys.argv[1], 'rb').read()
with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_STORED) as outer:
    for n in range(20):
        outer.writestr('lote-%02d.zip' % n, inner)`,
  // One 16 MB entry of zeros (made overlapping by OVERLAPPING_ZIP_SCRIPT).
  zeros: String.raw`
import zipfile
with zipfile.ZipFile('zeros.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    z.writestr('ceros.xml', bytes(16 << 20))`,
  // A message of quoted-printable lines (argv[1] of them): under the 16 MB message cap with 200,000, its attachment
  // decoding past the 12 MB one; past the message cap with 420,000 (over 30 MB).
  quotedPrintable: String.raw`
import sys
line = b'x' * 72 + b'=3D=\r\n'
sys.stdout.buffer.write(b'\r\n'.join([
    b'From: facturacion@proveedor.example.co',
    b'To: facturas@empresa.example.co',
    b'Subject: Factura con anexo',
    b'MIME-Version: 1.0',
    b'Content-Type: multipart/mixed; boundary="limite"',
    b'',
    b'--limite',
    b'Content-Type: text/xml; name="anexo.xml"',
    b'Content-Disposition: attachment; filename="anexo.xml"',
    b'Content-Transfer-Encoding: quoted-printable',
    b'',
    line * int(sys.argv[1]),
    b'--limite--',
    b'',
]))`,
};

describe('hostile intake against a worker held to its budget', () => {
  it('refuses each hostile file with its reason, imports the invoices around them, and stays under 400 MB', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    await registerCredentials(api.orm, company, {
      dianForwarding: true,
      dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
    });
    await python(HOSTILE.bomb);
    await python(HOSTILE.nested);
    await python(HOSTILE.zeros);
    writeFileSync(join(work, 'overlapping.zip'), await python(OVERLAPPING_ZIP_SCRIPT, 'zeros.zip'));
    const quotedPrintable = await python(HOSTILE.quotedPrintable, '200000');
    expect(quotedPrintable.byteLength).toBeLessThan(16 * MB);
    const quotedPrintableHuge = await python(HOSTILE.quotedPrintable, '420000');
    expect(quotedPrintableHuge.byteLength).toBeGreaterThan(30 * MB);

    // Oldest first: a good invoice, the hostile mails, a good credit note.
    let minutes = 0;
    const deliver = (name: string, data: Uint8Array) =>
      dianMailbox.deliver(company.id, {
        attachments: [{ name, data }],
        receivedAt: new Date(Date.now() - 2 * DAY + ++minutes * 60_000),
      });
    deliver('z-buena.zip', zipSync({ 'ad-buena.xml': ATTACHED }));
    for (const archive of ['bomb.zip', 'liar.zip', 'nested.zip', 'overlapping.zip'])
      deliver(archive, readFileSync(join(work, archive)));
    const companyFolder = dianMailbox.folder(company.id);
    mkdirSync(join(companyFolder, 'new'), { recursive: true });
    const qpMessage = join(companyFolder, 'new', '1.M1P1.anexo-qp');
    writeFileSync(qpMessage, quotedPrintable);
    const qpHuge = join(companyFolder, 'new', '2.M1P1.anexo-qp-enorme');
    writeFileSync(qpHuge, quotedPrintableHuge);
    // 600 MB of nothing on disk (a sparse file): refused on its size, never read.
    const huge = join(companyFolder, 'enorme.xml');
    writeFileSync(huge, '<?xml version="1.0"?><Invoice>');
    truncateSync(huge, 600 * MB);
    for (const file of [qpMessage, qpHuge, huge]) {
      const at = new Date(Date.now() - 2 * DAY + ++minutes * 60_000);
      utimesSync(file, at, at);
    }
    deliver('nc.xml', CREDIT_NOTE);

    expect(await syncToTheEnd(api.sdk(apiKey), 240_000)).toMatchObject({ status: 'finished' });
    const documents = expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;
    expect(documents.map((document) => document.document_number).sort()).toEqual(['NC3', 'SETP990000008']);

    const refused = (await ops('fiscal', 'intake', '--company', company.id, '--limit', '1000')).stdout.refused as {
      file: string;
      reason: string;
      detail: string;
    }[];
    const about = (file: RegExp) => refused.filter((refusal) => file.test(refusal.file));
    expect(about(/bomb\.zip\/bomb\.xml$/)).toEqual([
      expect.objectContaining({ reason: 'too_large', detail: expect.stringContaining('10 MB XML cap') }),
    ]);
    expect(about(/liar\.zip\/bomb\.xml$/)).toEqual([
      expect.objectContaining({ reason: 'unreadable', detail: 'inflates past the 2000 bytes it declares' }),
    ]);
    expect(about(/nested\.zip\//).length).toBeGreaterThan(0);
    expect(about(/overlapping\.zip\/copia-/)).toHaveLength(99);
    // Named XML: held to the XML cap, lower than the attachment one.
    expect(about(/anexo-qp\/anexo\.xml$/)).toEqual([
      expect.objectContaining({ reason: 'too_large', detail: expect.stringContaining('10 MB XML cap') }),
    ]);
    expect(about(/anexo-qp-enorme$/)).toEqual([
      expect.objectContaining({ reason: 'too_large', detail: expect.stringContaining('INTAKE_MAX_MESSAGE_BYTES') }),
    ]);
    expect(about(/enorme\.xml$/)).toEqual([
      expect.objectContaining({ reason: 'too_large', detail: expect.stringContaining('INTAKE_MAX_MESSAGE_BYTES') }),
    ]);

    const peak = peakResidentBytes(worker.process.pid!);
    console.info(`[intake-memory] worker peak resident memory: ${(peak / MB).toFixed(0)} MB`);
    expect(peak).toBeLessThan(WORKER_BUDGET);
  }, 300_000);

  it('imports a 240 MB SAT package entry by entry, within the same budget', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    const rfc = uniqueRfc();
    await registerCredentials(api.orm, company, { ciecStatus: 'valid', rfc });
    const cfdi = (name: string) => new URL(`cfdi/${name}`, FIXTURES).pathname;
    await python(
      HOSTILE.satPackage,
      cfdi('satcfdi-he951128469_ingreso_iva16_stamped.xml'),
      cfdi('cfdiutils-cfdi40-valid-ingreso.xml'),
    );
    await satProvider.behave(rfc, { polls: 1, packages: [{ path: join(work, 'paquete.zip') }] });
    // A fresh worker, so that its peak is the package's alone.
    await worker.kill();
    worker = spawnWorker(TASK_QUEUE);
    await worker.ready;

    expect(await syncToTheEnd(api.sdk(apiKey), 240_000)).toMatchObject({ status: 'finished' });
    const documents = expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;
    expect(documents).toHaveLength(2);
    const refused = (await ops('fiscal', 'intake', '--company', company.id, '--limit', '100')).stdout.refused as {
      file: string;
      reason: string;
    }[];
    expect(refused).toHaveLength(20);
    expect(new Set(refused.map((refusal) => refusal.reason))).toEqual(new Set(['not_xml']));

    const peak = peakResidentBytes(worker.process.pid!);
    console.info(`[intake-memory] worker peak resident memory on the package: ${(peak / MB).toFixed(0)} MB`);
    expect(peak).toBeLessThan(WORKER_BUDGET);
  }, 300_000);
});

const MiB = MB;
/** The two inputs of the issue: 60 XML entries of 20 MiB (1.2 MB deflated), and 2,000 MiB of nested XML entries. */
async function buildArchives(): Promise<{ sixty: Buffer; nested: Buffer }> {
  await python(HOSTILE.sameEntries, 'sesenta.zip', String(20 * MiB), '60', 'anexo-%02d.xml');
  // 20 ZIPs of 10 entries of one byte less than the XML cap: each inflated, looked at and let go.
  await python(HOSTILE.sameEntries, 'lote.zip', String(10 * MiB - 1), '10', 'factura-%02d.xml');
  await python(HOSTILE.nestedOf, 'lote.zip', 'anidado.zip');
  return { sixty: readFileSync(join(work, 'sesenta.zip')), nested: readFileSync(join(work, 'anidado.zip')) };
}

let invoices = 0;
/** A good invoice of its own (a number and a CUFE no other has). */
const goodInvoice = () =>
  Buffer.from(
    dianInvoiceXml({
      documentNumber: `MEM-${process.pid}-${++invoices}`,
      supplier: { name: 'Proveedor de Ejemplo S.A.S.', nit: '900123456' },
      lines: [{ description: 'Servicio', quantity: 1, unitPriceCents: 100_000n }],
    }).xml,
  );

type Refused = { file: string; reason: string; detail: string };

/** A fresh worker, so that the peak measured is what follows alone. */
async function freshWorker(env: Record<string, string> = {}): Promise<void> {
  await worker.kill();
  worker = spawnWorker(TASK_QUEUE, env);
  await worker.ready;
}

/** The 60 entries of 20 MiB: each refused on what it declares, none inflated. */
function expectSixtyRefused(refused: Refused[], file: RegExp): void {
  const about = refused.filter((refusal) => file.test(refusal.file));
  expect(about).toHaveLength(60);
  expect(new Set(about.map(({ reason, detail }) => `${reason}: ${detail}`))).toEqual(
    new Set([
      `too_large: declares ${20 * MiB} bytes, at or past the 10 MB XML cap (the parser's, MAX_FISCAL_XML_BYTES)`,
    ]),
  );
}

/** The 200 nested entries just under the XML cap: each inflated, then refused for a text too long to parse. */
function expectNestedRefused(refused: Refused[], file: RegExp): void {
  const about = refused.filter((refusal) => file.test(refusal.file));
  expect(about).toHaveLength(200);
  for (const refusal of about)
    expect(refusal).toMatchObject({ reason: 'invalid_document', detail: expect.stringMatching(/^file_too_large: /) });
}

describe('a mailbox item is imported one entry at a time', () => {
  it('60 entries of 20 MiB, and nested ZIPs of 2,000 MiB, from the Maildir: each within the budget', async () => {
    const { sixty, nested } = await buildArchives();
    expect(sixty.byteLength).toBeLessThan(1.5 * MB);
    const peaks: Record<string, number> = {};
    for (const [name, archive] of [
      ['sesenta.zip', sixty],
      ['anidado.zip', nested],
    ] as const) {
      const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
      await registerCredentials(api.orm, company, {
        dianForwarding: true,
        dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
      });
      const arrived = (minutes: number) => new Date(Date.now() - 2 * DAY + minutes * 60_000);
      dianMailbox.deliver(company.id, {
        attachments: [{ name: 'antes.xml', data: goodInvoice() }],
        receivedAt: arrived(1),
      });
      dianMailbox.deliver(company.id, { attachments: [{ name, data: archive }], receivedAt: arrived(2) });
      dianMailbox.deliver(company.id, {
        attachments: [{ name: 'despues.xml', data: goodInvoice() }],
        receivedAt: arrived(3),
      });
      await freshWorker();
      expect(await syncToTheEnd(api.sdk(apiKey), 240_000)).toMatchObject({ status: 'finished' });
      expect(expectStatus(await api.sdk(apiKey).listDocuments(), 200).items).toHaveLength(2);
      peaks[name] = peakResidentBytes(worker.process.pid!);
      const refused = (await ops('fiscal', 'intake', '--company', company.id, '--limit', '1000')).stdout
        .refused as Refused[];
      if (name === 'sesenta.zip') expectSixtyRefused(refused, /sesenta\.zip\/anexo-\d\d\.xml$/);
      else expectNestedRefused(refused, /anidado\.zip\/lote-\d\d\.zip\/factura-\d\d\.xml$/);
      expect(refused).toHaveLength(name === 'sesenta.zip' ? 60 : 200);
    }
    console.info(
      `[intake-memory] worker peak resident memory, Maildir: ${Object.entries(peaks)
        .map(([name, peak]) => `${name} ${(peak / MB).toFixed(0)} MB`)
        .join(', ')}`,
    );
    for (const peak of Object.values(peaks)) expect(peak).toBeLessThan(WORKER_BUDGET);
  }, 600_000);

  it('the same two, from an IMAP mailbox (its messages downloaded as streams)', async () => {
    const { sixty, nested } = await buildArchives();
    const dovecot = await startDovecot();
    try {
      const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
      await registerCredentials(api.orm, company, {
        dianForwarding: true,
        dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
      });
      const user = `dian-${company.id}`;
      const password = randomBytes(12).toString('hex');
      dovecot.addUser(user, password);
      const passwordFile = join(work, 'imap.password');
      writeFileSync(passwordFile, `${password}\n`);
      const registered = await ops(
        'fiscal',
        'mailbox',
        '--company',
        company.id,
        '--host',
        dovecot.host,
        '--port',
        String(dovecot.port),
        '--tls',
        'false',
        '--user',
        user,
        '--password-file',
        passwordFile,
      );
      expect(registered.code, JSON.stringify(registered.stderr)).toBe(0);
      const client = await dovecot.login(user, password);
      try {
        const attachments = [
          [{ filename: 'antes.xml', content: goodInvoice() }],
          [{ filename: 'sesenta.zip', content: sixty }],
          [{ filename: 'anidado.zip', content: nested }],
          [{ filename: 'despues.xml', content: goodInvoice() }],
        ];
        for (const [index, files] of attachments.entries()) {
          const receivedAt = new Date(Date.now() - 2 * DAY + index * 60_000);
          const raw = await new MailComposer({
            from: 'facturacion@proveedor.example.co',
            to: 'dian@empresa.example.co',
            subject: `Factura ${index}`,
            messageId: `<memoria-${index}@proveedor.example.co>`,
            date: receivedAt,
            text: 'Adjuntamos la factura electrónica.',
            attachments: files,
          })
            .compile()
            .build();
          await client.append('INBOX', raw, [], receivedAt);
        }
      } finally {
        await client.logout();
      }
      await freshWorker();
      expect(await syncToTheEnd(api.sdk(apiKey), 240_000)).toMatchObject({ status: 'finished' });
      expect(expectStatus(await api.sdk(apiKey).listDocuments(), 200).items).toHaveLength(2);
      const peak = peakResidentBytes(worker.process.pid!);
      const refused = (await ops('fiscal', 'intake', '--company', company.id, '--limit', '1000')).stdout
        .refused as Refused[];
      expect(refused).toHaveLength(260);
      expectSixtyRefused(refused, /^\d+\.eml\/sesenta\.zip\/anexo-\d\d\.xml$/);
      expectNestedRefused(refused, /^\d+\.eml\/anidado\.zip\/lote-\d\d\.zip\/factura-\d\d\.xml$/);
      console.info(`[intake-memory] worker peak resident memory, IMAP (both archives): ${(peak / MB).toFixed(0)} MB`);
      expect(peak).toBeLessThan(WORKER_BUDGET);
    } finally {
      await dovecot.stop();
    }
  }, 600_000);
});

/** A valid invoice at both of the parser's caps: just under 40,000 elements and 10 MB, its lines' descriptions long. */
function invoiceAtTheCaps(): Buffer {
  const lines = Array.from({ length: 2_080 }, (_, n) => ({
    description: `Servicio ${n} ${'detalle '.repeat(515)}`,
    quantity: 1,
    unitPriceCents: 100_000n,
  }));
  return Buffer.from(
    dianInvoiceXml({
      documentNumber: `MEM-${process.pid}-GRANDE`,
      supplier: { name: 'Proveedor de Ejemplo S.A.S.', nit: '900123456' },
      ivaPercent: 19,
      lines,
    }).xml,
  );
}

/** Hostile XML at the caps: `count` elements around text filling the file to just under 10 MB. */
function xmlOfElements(count: number, encoding: 'utf8' | 'utf16le' = 'utf8'): Buffer {
  const head = `<?xml version="1.0" encoding="${encoding === 'utf8' ? 'UTF-8' : 'UTF-16'}"?><cfdi:Comprobante xmlns:cfdi="http://www.sat.gob.mx/cfd/4" Version="4.0">`;
  const tail = '</cfdi:Comprobante>';
  const unit = encoding === 'utf8' ? 1 : 2;
  const each = Math.floor(((10 * MB) / unit - head.length - tail.length - 1024) / count);
  const open = '<cfdi:Concepto Importe="1.00">';
  const close = '</cfdi:Concepto>';
  const text = 'x'.repeat(Math.max(0, each - open.length - close.length));
  const xml = head + (open + text + close).repeat(count) + tail;
  return encoding === 'utf8'
    ? Buffer.from(xml)
    : Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(xml, 'utf16le')]);
}

describe('XML at the parser caps', () => {
  it('an invoice of 2,080 lines, and hostile files of 40,000 elements or of 1 MiB texts, each under the caps: within the budget', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    await registerCredentials(api.orm, company, {
      dianForwarding: true,
      dian: { nit: uniqueNit(), legalRepresentative: 'Ana Pérez' },
    });
    const runs = Buffer.from(
      `<?xml version="1.0"?><Invoice>${`<cbc:Note>${'z'.repeat(MiB - 32)}</cbc:Note>`.repeat(9)}</Invoice>`,
    );
    const files: [string, Buffer][] = [
      ['antes.xml', goodInvoice()],
      ['lineas.xml', invoiceAtTheCaps()],
      ['elementos.xml', xmlOfElements(39_990)],
      ['elementos-utf16.xml', xmlOfElements(39_990, 'utf16le')],
      ['textos.xml', runs],
      ['despues.xml', goodInvoice()],
    ];
    for (const [name, data] of files) expect([name, data.byteLength < 10 * MB]).toEqual([name, true]);
    for (const [index, [name, data]] of files.entries())
      dianMailbox.deliver(company.id, {
        attachments: [{ name, data }],
        receivedAt: new Date(Date.now() - 2 * DAY + index * 60_000),
      });
    await freshWorker();

    expect(await syncToTheEnd(api.sdk(apiKey), 240_000)).toMatchObject({ status: 'finished' });
    const documents = expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;
    expect(documents).toHaveLength(3);
    const large = documents.find((document) => document.document_number === `MEM-${process.pid}-GRANDE`);
    expect(large).toBeDefined();
    const detail = expectStatus(await api.sdk(apiKey).getDocument({ params: { reference: large!.reference } }), 200);
    expect(detail.line_items).toHaveLength(2_080);
    const refused = (await ops('fiscal', 'intake', '--company', company.id, '--limit', '100')).stdout
      .refused as Refused[];
    const named = refused.map((refusal) => `${refusal.file.replace(/^.*\//, '')} ${refusal.reason}`);
    expect(named.sort((a, b) => (a < b ? -1 : 1))).toEqual([
      'elementos-utf16.xml invalid_document',
      'elementos.xml invalid_document',
      'textos.xml invalid_document',
    ]);
    // Read last: the large invoice's processes (its lifecycle, its document.created delivery) ran meanwhile.
    const peak = peakResidentBytes(worker.process.pid!);
    console.info(`[intake-memory] worker peak resident memory, XML at the parser caps: ${(peak / MB).toFixed(0)} MB`);
    expect(peak).toBeLessThan(WORKER_BUDGET);
  }, 600_000);
});
