// What suppliers and SAT actually send, built at test time with the tools that make it in the wild: messages from
// Python's `email` package and nodemailer, archives from Info-ZIP, 7-Zip, Java and Python's `zipfile` (data descriptors,
// ZIP64, UTF-8 names), and hostile ones (path traversal, bombs, overlapping entries, truncation, encryption, a huge
// quoted-printable attachment). Each good input yields the AttachedDocument (or CFDI) byte for byte; each hostile one
// is refused with its reason, the other files of the same message or package are still read, and the process's memory
// does not jump.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { strToU8, zipSync } from 'fflate';
import MailComposer from 'nodemailer/lib/mail-composer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc2231Message } from '../../helpers/mail-messages.ts';
import { DEFAULT_INTAKE_LIMITS, type IntakeLimits } from '../../../fiscal/intake-limits.ts';
import { parseFiscalDocument } from '../../../fiscal/parse.ts';
import { documentsInMailboxItem, xmlFilesOfPackage, type FoundFiles } from '../../helpers/package-files.ts';
import { OVERLAPPING_ZIP_SCRIPT } from '../../helpers/overlapping-zip.ts';

const exec = promisify(execFile);
const FIXTURES = new URL('../../fixtures/', import.meta.url);
const ATTACHED = new Uint8Array(readFileSync(new URL('dian/constructed-attached-document-invoice.xml', FIXTURES)));
const CFDI_NAME = 'satcfdi-he951128469_ingreso_iva16_stamped.xml';
const CFDI = new Uint8Array(readFileSync(new URL(`cfdi/${CFDI_NAME}`, FIXTURES)));
const XML = 'ad0900123456.xml';
const PDF = 'fv0900123456.pdf';
const UTF8_NAME = 'factura-ñandú-€.xml';
const MB = 1024 * 1024;
/** How much the process's resident memory may grow while a hostile input is read. */
const RSS_GROWTH_LIMIT = 150 * MB;

let work: string;
const at = (name: string) => join(work, name);
const read = (name: string) => new Uint8Array(readFileSync(at(name)));

/** Runs a tool in the work directory; answers its standard output. */
async function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Uint8Array> {
  const { stdout } = await exec(command, args, {
    cwd: work,
    encoding: 'buffer',
    maxBuffer: 64 * MB,
    env: { ...process.env, ...env },
  });
  return new Uint8Array(stdout);
}

/** Runs a tool that writes `output`, and answers that file. */
const made = async (output: string, command: string, args: string[], env?: NodeJS.ProcessEnv) => {
  await run(command, args, env);
  return read(output);
};

const python = (script: string, ...args: string[]) => run('python3', ['-c', script, ...args]);

/** A ZIP written by Python's zipfile into memory: `entries` as [name in the archive, file, compression]. */
const PYTHON_ZIP = String.raw`
import io, json, sys, zipfile
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, 'w') as z:
    for name, path, method in json.loads(sys.argv[1]):
        # ZipInfo keeps the name as given (z.write would drop a leading slash).
        entry = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        entry.compress_type = getattr(zipfile, method)
        with open(path, 'rb') as file:
            z.writestr(entry, file.read())
sys.stdout.buffer.write(buffer.getvalue())`;
const pythonZip = (entries: [string, string, 'ZIP_DEFLATED' | 'ZIP_STORED'][]) =>
  python(PYTHON_ZIP, JSON.stringify(entries));

/**
 * A message from Python's email package, from a spec of attachments: `{ path, type, filename, cte?, rfc2047? }`, or
 * `{ message: spec }` for a forwarded message. The package writes RFC 2231 names; an RFC 2047 one is put in after
 * serialising, as other mailers write it.
 */
const PYTHON_MAIL = String.raw`
import json, sys
from email import policy
from email.header import Header
from email.message import EmailMessage

words = {}

def build(spec):
    message = EmailMessage()
    message['From'] = 'Facturación Electrónica <facturacion@proveedor.example.co>'
    message['To'] = 'facturas@empresa.example.co'
    message['Subject'] = 'Factura SETP990000008'
    message.set_content('Adjuntamos la factura electrónica.')
    for attachment in spec['attachments']:
        if 'message' in attachment:
            message.add_attachment(build(attachment['message']))
            continue
        maintype, subtype = attachment['type'].split('/')
        filename = attachment['filename']
        if attachment.get('rfc2047'):
            filename = 'rfc2047-%d.bin' % len(words)
            words[filename] = Header(attachment['filename'], 'utf-8').encode()
        with open(attachment['path'], 'rb') as file:
            data = file.read()
        message.add_attachment(data, maintype=maintype, subtype=subtype, filename=filename,
                               cte=attachment.get('cte', 'base64'))
    return message

raw = build(json.loads(sys.argv[1])).as_bytes(policy=policy.SMTP)
for placeholder, word in words.items():
    raw = raw.replace(placeholder.encode(), word.encode())
sys.stdout.buffer.write(raw)`;
type MailSpec = {
  attachments: (
    { path: string; type: string; filename: string; cte?: string; rfc2047?: boolean } | { message: MailSpec }
  )[];
};
const pythonMail = (spec: MailSpec) => python(PYTHON_MAIL, JSON.stringify(spec));

/** The found XML files' names and the refusals. */
const summary = (found: FoundFiles) => ({ files: found.files.map((file) => file.name), skipped: found.skipped });

function expectSameBytes(actual: Uint8Array | undefined, expected: Uint8Array) {
  expect(actual).toBeDefined();
  expect(Buffer.from(actual!).equals(Buffer.from(expected))).toBe(true);
}

/** Flag bit 3 of the first local header: sizes and CRC follow the data instead of preceding it. */
const usesDataDescriptor = (zip: Uint8Array) => (Buffer.from(zip).readUInt16LE(6) & 0x08) !== 0;

/** Runs `work` while sampling the resident set size; answers its result and the largest growth seen. */
async function watchingMemory<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sample = () => {
    peak = Math.max(peak, process.memoryUsage().rss);
  };
  const timer = setInterval(sample, 5);
  try {
    const result = await work();
    sample();
    return { result, growth: peak - before };
  } finally {
    clearInterval(timer);
  }
}

const rssFigures: string[] = [];
function expectSmallGrowth(what: string, growth: number) {
  rssFigures.push(`${what}: ${(growth / MB).toFixed(1)} MB`);
  expect(growth).toBeLessThan(RSS_GROWTH_LIMIT);
}

const limits = (changes: Partial<IntakeLimits> = {}): IntakeLimits => ({ ...DEFAULT_INTAKE_LIMITS, ...changes });

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'intake-formats-'));
  writeFileSync(at(XML), ATTACHED);
  writeFileSync(at(PDF), '%PDF-1.4\n%âãÏÓ\n');
  writeFileSync(at(UTF8_NAME), ATTACHED);
  writeFileSync(at('confidencial.xml'), ATTACHED);
  writeFileSync(at(CFDI_NAME), CFDI);
});

afterAll(() => {
  if (rssFigures.length) console.info(`Resident memory growth while refusing hostile input: ${rssFigures.join('; ')}`);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('archives from real tools', () => {
  const ARCHIVERS: { tool: string; build: () => Promise<Uint8Array>; dataDescriptor?: boolean }[] = [
    { tool: 'Info-ZIP', build: () => made('info-zip.zip', 'zip', ['-q', '-X', 'info-zip.zip', XML, PDF]) },
    { tool: 'Info-ZIP writing to a pipe', build: () => run('zip', ['-q', '-', XML, PDF]), dataDescriptor: true },
    { tool: '7-Zip', build: () => made('7z.zip', '7z', ['a', '-tzip', '-bso0', '-bsp0', '7z.zip', XML, PDF]) },
    { tool: 'Java jar', build: () => made('jar.zip', 'jar', ['cfM', 'jar.zip', XML, PDF]), dataDescriptor: true },
    {
      tool: 'Python zipfile, deflated',
      build: () =>
        pythonZip([
          [XML, XML, 'ZIP_DEFLATED'],
          [PDF, PDF, 'ZIP_DEFLATED'],
        ]),
    },
    {
      tool: 'Python zipfile, stored',
      build: () =>
        pythonZip([
          [XML, XML, 'ZIP_STORED'],
          [PDF, PDF, 'ZIP_STORED'],
        ]),
    },
    {
      tool: 'Python zipfile writing to a non-seekable stream',
      build: () =>
        python(
          String.raw`
import sys, zipfile
with zipfile.ZipFile(sys.stdout.buffer, 'w', zipfile.ZIP_DEFLATED) as z:
    z.write(sys.argv[1]); z.write(sys.argv[2])`,
          XML,
          PDF,
        ),
      dataDescriptor: true,
    },
    {
      tool: 'Python zipfile, force_zip64',
      build: () =>
        python(
          String.raw`
import io, sys, zipfile
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as z:
    with z.open(sys.argv[1], 'w', force_zip64=True) as entry, open(sys.argv[1], 'rb') as file:
        entry.write(file.read())
    z.write(sys.argv[2])
sys.stdout.buffer.write(buffer.getvalue())`,
          XML,
          PDF,
        ),
    },
  ];

  it.each(ARCHIVERS)(
    '$tool: the AttachedDocument comes out byte for byte, dropped, mailed or packaged',
    async (archiver) => {
      const zip = await archiver.build();
      if (archiver.dataDescriptor) expect(usesDataDescriptor(zip)).toBe(true);
      writeFileSync(at('built.zip'), zip);

      const dropped = await documentsInMailboxItem('z0900123456.zip', zip);
      expect(summary(dropped)).toEqual({ files: [`z0900123456.zip/${XML}`], skipped: [] });
      expectSameBytes(dropped.files[0]!.bytes, ATTACHED);

      const mail = await pythonMail({
        attachments: [{ path: 'built.zip', type: 'application/zip', filename: 'z0900123456.zip' }],
      });
      const mailed = await documentsInMailboxItem('new/1.M1P1.host', mail);
      expect(summary(mailed)).toEqual({ files: [`new/1.M1P1.host/z0900123456.zip/${XML}`], skipped: [] });
      expectSameBytes(mailed.files[0]!.bytes, ATTACHED);

      const packaged = await xmlFilesOfPackage(zip, limits());
      expect(packaged.files.map((file) => file.name)).toEqual([XML]);
      expectSameBytes(packaged.files[0]!.bytes, ATTACHED);
    },
  );

  it('Python zipfile, more than 65,535 entries (ZIP64): a SAT package reads to its CFDI', async () => {
    const zip = await python(
      String.raw`
import io, sys, zipfile
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, 'w') as z:
    for n in range(70000):
        z.writestr('vacio/%05d/' % n, b'')
    z.write(sys.argv[1], compress_type=zipfile.ZIP_DEFLATED)
sys.stdout.buffer.write(buffer.getvalue())`,
      CFDI_NAME,
    );
    // The ZIP64 end of central directory record: the classic one cannot count past 65,535 entries.
    expect(Buffer.from(zip).lastIndexOf(Buffer.from([0x50, 0x4b, 0x06, 0x06]))).toBeGreaterThan(0);
    const { files, skipped } = await xmlFilesOfPackage(zip, limits());
    expect(files.map((file) => file.name)).toEqual([CFDI_NAME]);
    expectSameBytes(files[0]!.bytes, CFDI);
    expect(skipped).toEqual([]);
  });

  it.each([
    { tool: 'Python zipfile', build: () => pythonZip([[UTF8_NAME, UTF8_NAME, 'ZIP_DEFLATED']]) },
    { tool: 'Info-ZIP', build: () => made('utf8.zip', 'zip', ['-q', 'utf8.zip', UTF8_NAME], { LC_ALL: 'C.UTF-8' }) },
    {
      tool: '7-Zip',
      build: () => made('utf8-7z.zip', '7z', ['a', '-tzip', '-bso0', '-bsp0', 'utf8-7z.zip', UTF8_NAME]),
    },
  ])('$tool: UTF-8 entry names keep their letters', async ({ build }) => {
    const found = await documentsInMailboxItem('z.zip', await build());
    expect(summary(found)).toEqual({ files: [`z.zip/${UTF8_NAME}`], skipped: [] });
    expectSameBytes(found.files[0]!.bytes, ATTACHED);
  });
});

describe('messages from real mailers', () => {
  it("Python's email package: a ZIP attachment, base64", async () => {
    await made('python-mail.zip', 'zip', ['-q', 'python-mail.zip', XML, PDF]);
    const found = await documentsInMailboxItem(
      'new/2.M1P1.host',
      await pythonMail({
        attachments: [{ path: 'python-mail.zip', type: 'application/zip', filename: 'z0900123456.zip' }],
      }),
    );
    expect(summary(found)).toEqual({ files: [`new/2.M1P1.host/z0900123456.zip/${XML}`], skipped: [] });
    expectSameBytes(found.files[0]!.bytes, ATTACHED);
  });

  it("Python's email package: RFC 2231 and RFC 2047 encoded attachment names", async () => {
    await made('encoded-names.zip', 'zip', ['-q', 'encoded-names.zip', XML]);
    const mail = await pythonMail({
      attachments: [
        { path: 'encoded-names.zip', type: 'application/zip', filename: 'factura-ñandú-€.zip' },
        { path: XML, type: 'application/xml', filename: 'nota crédito ñandú.xml', rfc2047: true },
      ],
    });
    const raw = Buffer.from(mail).toString('latin1');
    expect(raw).toContain(`filename*=utf-8''factura-%C3%B1and%C3%BA-%E2%82%AC.zip`);
    expect(raw).toMatch(/filename="=\?utf-8\?b\?[^"]+\?="/);
    const found = await documentsInMailboxItem('new/3.M1P1.host', mail);
    expect(summary(found)).toEqual({
      files: [`new/3.M1P1.host/factura-ñandú-€.zip/${XML}`, 'new/3.M1P1.host/nota crédito ñandú.xml'],
      skipped: [],
    });
    for (const file of found.files) expectSameBytes(file.bytes, ATTACHED);
  });

  it("Python's email package: the XML attached without a ZIP, quoted-printable", async () => {
    const mail = await pythonMail({
      attachments: [{ path: XML, type: 'application/xml', filename: XML, cte: 'quoted-printable' }],
    });
    expect(Buffer.from(mail).toString('latin1')).toContain('Content-Transfer-Encoding: quoted-printable');
    const found = await documentsInMailboxItem('new/4.M1P1.host', mail);
    expect(summary(found)).toEqual({ files: [`new/4.M1P1.host/${XML}`], skipped: [] });
    expectSameBytes(found.files[0]!.bytes, ATTACHED);
  });

  it('a forwarded message (message/rfc822) holding the original with its ZIP', async () => {
    await made('forwarded.zip', 'zip', ['-q', 'forwarded.zip', XML, PDF]);
    const mail = await pythonMail({
      attachments: [
        { message: { attachments: [{ path: 'forwarded.zip', type: 'application/zip', filename: 'z0900123456.zip' }] } },
      ],
    });
    expect(Buffer.from(mail).toString('latin1')).toContain('Content-Type: message/rfc822');
    const found = await documentsInMailboxItem('new/5.M1P1.host', mail);
    expect(summary(found)).toEqual({ files: [`new/5.M1P1.host/part-1.eml/z0900123456.zip/${XML}`], skipped: [] });
    expectSameBytes(found.files[0]!.bytes, ATTACHED);
  });

  it("nodemailer's MailComposer: a long non-ASCII ZIP name and a quoted-printable XML", async () => {
    const zip = await made('nodemailer.zip', 'zip', ['-q', 'nodemailer.zip', XML, PDF]);
    const longName = 'Factura electrónica SETP990000008 de Proveedor de Ejemplo S.A.S. — ñandú.zip';
    const mail = await new MailComposer({
      from: 'Facturación Electrónica <facturacion@proveedor.example.co>',
      to: 'facturas@empresa.example.co',
      subject: 'Factura SETP990000008 — ñandú',
      text: 'Adjuntamos la factura electrónica.',
      attachments: [
        { filename: longName, content: Buffer.from(zip) },
        {
          filename: XML,
          content: Buffer.from(ATTACHED),
          contentType: 'application/xml',
          contentTransferEncoding: 'quoted-printable',
        },
      ],
    })
      .compile()
      .build();
    expect(mail.toString('latin1')).toMatch(/filename\*0\*=utf-8''/i);
    const found = await documentsInMailboxItem('new/6.M1P1.host', new Uint8Array(mail));
    expect(summary(found)).toEqual({
      files: [`new/6.M1P1.host/${longName}/${XML}`, `new/6.M1P1.host/${XML}`],
      skipped: [],
    });
    for (const file of found.files) expectSameBytes(file.bytes, ATTACHED);
  });
});

describe('hostile input is refused, naming why, and the rest is still read', () => {
  it('path traversal and absolute names', async () => {
    const zip = await pythonZip([
      ['../../etc/evil.xml', XML, 'ZIP_DEFLATED'],
      ['/tmp/evil.xml', XML, 'ZIP_DEFLATED'],
      [XML, XML, 'ZIP_DEFLATED'],
    ]);
    const found = await documentsInMailboxItem('z.zip', zip);
    expect(summary(found)).toEqual({
      files: [`z.zip/${XML}`],
      skipped: [
        { name: 'z.zip/../../etc/evil.xml', reason: 'unsafe_name', detail: 'refused name (invalid relative path)' },
        { name: 'z.zip//tmp/evil.xml', reason: 'unsafe_name', detail: 'refused name (absolute path)' },
      ],
    });
    expect((await xmlFilesOfPackage(zip, limits())).skipped.map((entry) => entry.reason)).toEqual([
      'unsafe_name',
      'unsafe_name',
    ]);
  });

  it('an encrypted entry', async () => {
    await run('zip', ['-q', '-P', 'secreto', 'cifrado.zip', 'confidencial.xml']);
    const zip = await made('cifrado.zip', 'zip', ['-q', 'cifrado.zip', XML]);
    expect(summary(await documentsInMailboxItem('cifrado.zip', zip))).toEqual({
      files: [`cifrado.zip/${XML}`],
      skipped: [{ name: 'cifrado.zip/confidencial.xml', reason: 'unreadable', detail: 'encrypted' }],
    });
  });

  it('a truncated archive, in a message with another attachment', async () => {
    const zip = await made('to-cut.zip', 'zip', ['-q', 'to-cut.zip', XML, PDF]);
    writeFileSync(at('cut.zip'), zip.subarray(0, Math.floor(zip.byteLength * 0.6)));
    const mail = await pythonMail({
      attachments: [
        { path: 'cut.zip', type: 'application/zip', filename: 'cortado.zip' },
        { path: XML, type: 'application/xml', filename: XML },
      ],
    });
    expect(summary(await documentsInMailboxItem('m', mail))).toEqual({
      files: [`m/${XML}`],
      skipped: [
        {
          name: 'm/cortado.zip',
          reason: 'unreadable',
          detail: expect.stringMatching(/^not a ZIP archive, or a truncated one: /),
        },
      ],
    });
    await expect(xmlFilesOfPackage(read('cut.zip'), limits())).rejects.toMatchObject({
      refusal: { reason: 'unreadable' },
    });
  });

  describe('bombs', () => {
    // 1 GB of zeros deflated to about 1 MB, streamed through zlib so that Python never holds it either.
    beforeAll(async () => {
      await python(
        String.raw`
import sys, zipfile
with zipfile.ZipFile('bomb.zip', 'w', zipfile.ZIP_DEFLATED) as z:
    with z.open('bomb.xml', 'w') as entry:
        chunk = bytes(1 << 20)
        for _ in range(1024):
            entry.write(chunk)
    z.write(sys.argv[1])`,
        XML,
      );
    });

    it('1 GB of zeros in one entry is refused on its declared size, without inflating it', async () => {
      const zip = read('bomb.zip');
      expect(zip.byteLength).toBeLessThan(2 * MB);
      const { result, growth } = await watchingMemory(async () => ({
        mailed: await documentsInMailboxItem('bomba.zip', zip),
        packaged: await xmlFilesOfPackage(zip, limits()),
      }));
      const refusal = {
        reason: 'too_large',
        // Named XML: held to the XML cap, lower than the per-entry one.
        detail: "declares 1073741824 bytes, at or past the 10 MB XML cap (the parser's, MAX_FISCAL_XML_BYTES)",
      };
      expect(summary(result.mailed)).toEqual({
        files: [`bomba.zip/${XML}`],
        skipped: [{ name: 'bomba.zip/bomb.xml', ...refusal }],
      });
      expect(result.packaged.skipped).toEqual([{ name: 'bomb.xml', ...refusal }]);
      expectSameBytes(result.packaged.files[0]?.bytes, ATTACHED);
      expectSmallGrowth('1 GB bomb, declared', growth);
    });

    it('the same bomb declaring 2,000 bytes is stopped there', async () => {
      await python(
        String.raw`
import struct, sys
data = bytearray(open('bomb.zip', 'rb').read())
assert data[:4] == b'PK\x03\x04'
struct.pack_into('<I', data, 22, 2000)
directory = struct.unpack_from('<I', data, data.rfind(b'PK\x05\x06') + 16)[0]
assert data[directory:directory + 4] == b'PK\x01\x02'
struct.pack_into('<I', data, directory + 24, 2000)
open('liar.zip', 'wb').write(data)`,
      );
      const zip = read('liar.zip');
      const { result, growth } = await watchingMemory(() => documentsInMailboxItem('bomba.zip', zip));
      expect(summary(result)).toEqual({
        files: [`bomba.zip/${XML}`],
        skipped: [
          { name: 'bomba.zip/bomb.xml', reason: 'unreadable', detail: 'inflates past the 2000 bytes it declares' },
        ],
      });
      expectSmallGrowth('1 GB bomb, declaring 2,000 bytes', growth);
    });

    it('a nested bomb (16 ZIPs of 16 × 8 MB of zeros, 2 GB in all) stops at the archive cap', async () => {
      const zip = await python(String.raw`
import io, sys, zipfile
inner = io.BytesIO()
with zipfile.ZipFile(inner, 'w', zipfile.ZIP_DEFLATED) as z:
    zeros = bytes(8 << 20)
    for n in range(16):
        z.writestr('ceros-%02d.xml' % n, zeros)
outer = io.BytesIO()
with zipfile.ZipFile(outer, 'w', zipfile.ZIP_DEFLATED) as z:
    z.write('${XML}')
    for n in range(16):
        z.writestr('capa-%02d.zip' % n, inner.getvalue(), compress_type=zipfile.ZIP_STORED)
sys.stdout.buffer.write(outer.getvalue())`);
      expect(zip.byteLength).toBeLessThan(5 * MB);
      const caps = limits({ archiveBytes: 200 * MB });
      const { result, growth } = await watchingMemory(() => documentsInMailboxItem('anidado.zip', zip, caps));
      expect(result.files.map((file) => file.name)).toEqual([`anidado.zip/${XML}`]);
      const overCap = result.skipped.filter((entry) => entry.reason === 'too_large');
      expect(overCap[0]).toEqual({
        name: expect.stringMatching(/^anidado\.zip\/capa-01\.zip\/ceros-\d\d\.xml$/),
        reason: 'too_large',
        detail: 'the archive inflates at or past the 200 MB per-archive cap (INTAKE_MAX_ARCHIVE_BYTES)',
      });
      // Read before the cap: at most 200 MB of 8 MB entries; every layer after it is refused as it is reached.
      expect(result.skipped.filter((entry) => entry.reason === 'not_xml').length).toBeLessThanOrEqual(25);
      expect(overCap.map((entry) => entry.name)).toContain('anidado.zip/capa-15.zip');
      expectSmallGrowth('nested bomb, 2 GB', growth);
    });

    it("overlapping entries: copies that point at one entry's data are refused", async () => {
      await made('one-entry.zip', 'zip', ['-q', 'one-entry.zip', XML]);
      const zip = await python(OVERLAPPING_ZIP_SCRIPT, 'one-entry.zip');
      const found = await documentsInMailboxItem('solapado.zip', zip);
      expect(found.files.map((file) => file.name)).toEqual([`solapado.zip/${XML}`]);
      expect(found.skipped).toHaveLength(99);
      expect(new Set(found.skipped.map(({ reason, detail }) => `${reason}: ${detail}`))).toEqual(
        new Set(["unreadable: overlaps another entry's data"]),
      );
    });
  });

  it('a 30 MB quoted-printable attachment over a lowered cap is drained, not held', async () => {
    const mail = await python(
      String.raw`
import base64, sys
xml = open(sys.argv[1], 'rb').read()
line = b'x' * 72 + b'=3D=\r\n'
body = line * 430000
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
    body,
    b'--limite',
    b'Content-Type: application/xml; name="' + sys.argv[1].encode() + b'"',
    b'Content-Disposition: attachment; filename="' + sys.argv[1].encode() + b'"',
    b'Content-Transfer-Encoding: base64',
    b'',
    base64.encodebytes(xml),
    b'--limite--',
    b'',
]))`,
      XML,
    );
    expect(mail.byteLength).toBeGreaterThan(30 * MB);
    // The message is over the default message cap too: raised here, so that the attachment's cap is the one hit.
    const caps = limits({ messageBytes: 64 * MB, attachmentBytes: 5 * MB });
    const { result, growth } = await watchingMemory(() => documentsInMailboxItem('new/7.M1P1.host', mail, caps));
    expect(summary(result)).toEqual({
      files: [`new/7.M1P1.host/${XML}`],
      skipped: [
        {
          name: 'new/7.M1P1.host/anexo.xml',
          reason: 'too_large',
          detail: `decodes to ${430_000 * 73} bytes, at or past the 5 MB per-attachment cap (INTAKE_MAX_ATTACHMENT_BYTES)`,
        },
      ],
    });
    expectSameBytes(result.files[0]!.bytes, ATTACHED);
    expectSmallGrowth('30 MB quoted-printable attachment', growth);
  });

  it('an invoice inside an Outlook winmail.dat (TNEF) is refused as such, and the message with it says so', async () => {
    // TNEF's signature, then bytes that stand for the wrapped invoice: nothing here unpacks it.
    writeFileSync(at('winmail.dat'), Buffer.concat([Buffer.from([0x78, 0x9f, 0x3e, 0x22]), Buffer.from(ATTACHED)]));
    const found = await documentsInMailboxItem(
      'new/9.M1P1.host',
      await pythonMail({
        attachments: [{ path: 'winmail.dat', type: 'application/ms-tnef', filename: 'winmail.dat' }],
      }),
    );
    expect(summary(found)).toEqual({
      files: [],
      skipped: [
        {
          name: 'new/9.M1P1.host/winmail.dat',
          reason: 'unreadable',
          detail: expect.stringContaining('TNEF, winmail.dat'),
        },
      ],
    });
  });

  it('a message with only a PDF, and one whose MIME boundary is broken, are recorded as holding no document', async () => {
    const pdfOnly = await documentsInMailboxItem(
      'new/10.M1P1.host',
      await pythonMail({ attachments: [{ path: PDF, type: 'application/pdf', filename: PDF }] }),
    );
    expect(summary(pdfOnly)).toEqual({
      files: [],
      skipped: [
        {
          name: 'new/10.M1P1.host',
          reason: 'no_fiscal_document',
          detail: `no XML or ZIP attachment; it carries ${PDF} (application/pdf)`,
        },
      ],
    });

    await made('broken-boundary.zip', 'zip', ['-q', 'broken-boundary.zip', XML]);
    const mail = Buffer.from(
      await pythonMail({
        attachments: [{ path: 'broken-boundary.zip', type: 'application/zip', filename: 'z-roto.zip' }],
      }),
    ).toString('latin1');
    const boundary = /boundary="([^"]+)"/.exec(mail)![1]!;
    // The header names one boundary, the body is cut with another: no part can be found.
    const broken = mail.replace(`boundary="${boundary}"`, 'boundary="otro-limite"');
    const found = await documentsInMailboxItem('new/11.M1P1.host', new Uint8Array(Buffer.from(broken, 'latin1')));
    expect(summary(found)).toEqual({
      files: [],
      skipped: [{ name: 'new/11.M1P1.host', reason: 'no_fiscal_document', detail: expect.any(String) }],
    });
  });

  it('a message past the message cap is refused unread', async () => {
    const mail = await pythonMail({ attachments: [{ path: XML, type: 'application/xml', filename: XML }] });
    const found = await documentsInMailboxItem('new/8.M1P1.host', mail, limits({ messageBytes: 1024 }));
    expect(summary(found)).toEqual({
      files: [],
      skipped: [
        {
          name: 'new/8.M1P1.host',
          reason: 'too_large',
          detail: `${mail.byteLength} bytes, at or past the 1 KB per-message cap (INTAKE_MAX_MESSAGE_BYTES)`,
        },
      ],
    });
  });
});

describe('caps, names and encodings: one outcome per file, whatever holds it', () => {
  it('a cap is the first size refused: an entry of exactly the cap is refused, one byte less is read', async () => {
    const caps = limits({ entryBytes: 1000 });
    const xml = (size: number) => strToU8(`<R>${' '.repeat(size - 7)}</R>`);
    const zip = zipSync({ 'justo.xml': xml(1000), 'debajo.xml': xml(999) }, { level: 0 });
    const refusal = {
      name: 'justo.xml',
      reason: 'too_large',
      detail: 'declares 1000 bytes, at or past the 1000 bytes per-entry cap (INTAKE_MAX_ENTRY_BYTES)',
    };
    const packaged = await xmlFilesOfPackage(zip, caps);
    expect({ files: packaged.files.map((file) => file.name), skipped: packaged.skipped }).toEqual({
      files: ['debajo.xml'],
      skipped: [refusal],
    });
    const mailed = await documentsInMailboxItem('z.zip', zip, caps);
    expect(summary(mailed)).toEqual({
      files: ['z.zip/debajo.xml'],
      skipped: [{ ...refusal, name: 'z.zip/justo.xml' }],
    });
  });

  it('an XML entry is inflated only below the XML cap, whatever it declares', async () => {
    // 12 MB of XML: refused on what it declares, none of it inflated.
    const big = zipSync({ 'grande.xml': strToU8(`<R>${' '.repeat(12 * MB)}</R>`) });
    const found = await documentsInMailboxItem('z.zip', big);
    expect(found.skipped).toEqual([
      {
        name: 'z.zip/grande.xml',
        reason: 'too_large',
        detail: expect.stringMatching(/^declares \d+ bytes, at or past the 10 MB XML cap/),
      },
    ]);
    const packaged = await xmlFilesOfPackage(big, limits());
    expect(packaged.skipped[0]).toMatchObject({
      reason: 'too_large',
      detail: expect.stringContaining('10 MB XML cap'),
    });
  });

  it('names holding U+0000 (a ZIP entry, an RFC 2231 attachment name) come out storable', async () => {
    const zip = zipSync({ 'fact\u0000ura.xml': ATTACHED });
    const fromZip = await documentsInMailboxItem('z.zip', zip);
    expect(summary(fromZip)).toEqual({ files: ['z.zip/fact\\x00ura.xml'], skipped: [] });
    expect((await xmlFilesOfPackage(zip, limits())).files.map((file) => file.name)).toEqual(['fact\\x00ura.xml']);
    const mail = rfc2231Mail('fact%00ura.xml', ATTACHED);
    expect(summary(await documentsInMailboxItem('m', mail))).toEqual({ files: ['m/fact\\x00ura.xml'], skipped: [] });
  });

  it('UTF-16 LE and BE with their mark, and UTF-8 with it, are XML in a ZIP, as an attachment and in a package', async () => {
    const text = Buffer.from(ATTACHED).toString('utf8').replace('encoding="UTF-8"', 'encoding="UTF-16"');
    const encoded = {
      'le.xml': new Uint8Array(Buffer.from(`\uFEFF${text}`, 'utf16le')),
      'be.xml': new Uint8Array(Buffer.from(`\uFEFF${text}`, 'utf16le').swap16()),
      'bom8.xml': new Uint8Array(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(ATTACHED)])),
    };
    const names = Object.keys(encoded);
    const zip = zipSync(encoded);
    expect(summary(await documentsInMailboxItem('z.zip', zip))).toEqual({
      files: names.map((name) => `z.zip/${name}`),
      skipped: [],
    });
    expect((await xmlFilesOfPackage(zip, limits())).files.map((file) => file.name)).toEqual(names);
    const mail = await pythonMail({
      attachments: names.map((name) => {
        writeFileSync(at(name), encoded[name as keyof typeof encoded]);
        return { path: name, type: 'application/xml', filename: name };
      }),
    });
    const mailed = await documentsInMailboxItem('m', mail);
    expect(summary(mailed)).toEqual({ files: names.map((name) => `m/${name}`), skipped: [] });
    for (const file of mailed.files) expect(parseFiscalDocument(file.bytes, file.name).kind).toBe('document');
  });
});

/** A message whose one attachment is named with RFC 2231 percent-encoding, as written. */
const rfc2231Mail = (encodedName: string, data: Uint8Array): Uint8Array => strToU8(rfc2231Message(encodedName, data));
