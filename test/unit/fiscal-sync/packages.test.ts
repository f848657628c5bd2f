import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentsInMailboxItem } from '../../../fiscal/mail-documents.ts';
import { attachmentsOf, decodeWords, parseMail } from '../../../fiscal/mime.ts';
import { countSkips, xmlFilesOf } from '../../../fiscal/package-entries.ts';
import { looksLikeZip, readZip, writeZip, ZipFormatError } from '../../../fiscal/zip.ts';
import { buildMail } from '../../../simulators/dian-mailbox/mail.ts';
import { buildSatPackage, STAMPED_CFDI_FIXTURES } from '../../../simulators/sat-provider/server.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const fixture = (path: string) => new Uint8Array(readFileSync(new URL(path, FIXTURES)));

describe('ZIP reading', () => {
  it("reads SAT's sample package (phpcfdi fixture) entry by entry, directories included", () => {
    const entries = readZip(fixture('sat-descarga-masiva/cfdi.zip'));
    expect(entries.map((entry) => entry.name)).toEqual([
      '00000000-0000-0000-0000-000000000000.xml',
      '__MACOSX/',
      '__MACOSX/.aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml',
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml',
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml.xml',
      'empty-file',
      'other.txt',
    ]);
    const cfdi = entries.find((entry) => entry.name === 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml')!;
    expect(cfdi).toMatchObject({ size: 2599, problem: null });
    expect(new TextDecoder().decode(cfdi.data!)).toContain('<cfdi:Comprobante');
  });

  it('reads the package inside the SAT download response (base64 Paquete)', () => {
    const soap = readFileSync(new URL('sat-descarga-masiva/download-response-with-package.xml', FIXTURES), 'utf8');
    const zip = new Uint8Array(Buffer.from(/<Paquete>([^<]+)<\/Paquete>/.exec(soap)![1]!, 'base64'));
    const [entry] = readZip(zip);
    expect(entry!.name).toBe('4abf0f69-8e7d-42bd-ac5f-787275eb52d2.xml');
    expect(new TextDecoder().decode(entry!.data!)).toMatch(/^<cfdi:Comprobante .*Version="3.3"/);
  });

  it('round-trips what it writes, and refuses what is not a ZIP', () => {
    const zip = writeZip([{ name: 'a.xml', data: '<a/>' }, { name: 'dir/' }, { name: 'empty.txt', data: '' }]);
    expect(looksLikeZip(zip)).toBe(true);
    expect(
      readZip(zip).map((entry) => [entry.name, entry.directory, entry.data && new TextDecoder().decode(entry.data)]),
    ).toEqual([
      ['a.xml', false, '<a/>'],
      ['dir/', true, null],
      ['empty.txt', false, ''],
    ]);
    expect(() => readZip(new TextEncoder().encode('not a zip at all'))).toThrow(ZipFormatError);
  });

  it('reports a damaged entry instead of failing the archive', () => {
    const zip = writeZip([
      { name: 'a.xml', data: '<a>'.repeat(100) },
      { name: 'b.xml', data: '<b/>' },
    ]);
    zip[40] = zip[40]! ^ 0xff; // inside a.xml's compressed bytes
    const [a, b] = readZip(zip);
    expect(a).toMatchObject({ name: 'a.xml', data: null, problem: 'corrupt' });
    expect(b!.problem).toBeNull();
  });

  it('caps what an entry may expand to', () => {
    const zip = writeZip([{ name: 'bomb.xml', data: '<'.repeat(1_000_000) }]);
    expect(readZip(zip, { maxEntryBytes: 1000 })[0]).toMatchObject({ problem: 'too_large', data: null });
  });
});

describe('package filtering', () => {
  it('keeps the XML files and skips junk, counted by reason', () => {
    const { files, skipped } = xmlFilesOf(readZip(fixture('sat-descarga-masiva/cfdi.zip')));
    // The CFDI 3.2 files are XML: they are handed to the parser, which refuses them (counted as invalid_document then).
    expect(files.map((file) => file.name)).toEqual([
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml',
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml.xml',
    ]);
    expect(skipped).toEqual([
      { name: '00000000-0000-0000-0000-000000000000.xml', reason: 'not_xml', detail: 'the content is not XML' },
      { name: '__MACOSX/.aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml', reason: 'macos_metadata' },
      { name: 'empty-file', reason: 'empty' },
      { name: 'other.txt', reason: 'not_xml' },
    ]);
    expect(countSkips({}, skipped)).toEqual({ not_xml: 2, macos_metadata: 1, empty: 1 });
  });

  it("skips the metadata package's junk too", () => {
    const { files, skipped } = xmlFilesOf(readZip(fixture('sat-descarga-masiva/metadata.zip')));
    expect(files).toEqual([]);
    expect(countSkips({}, skipped)).toEqual({ not_xml: 3, macos_metadata: 1, empty: 1 });
  });

  it("the simulator's package holds the stamped fixtures first, then the sample junk", () => {
    const { files, skipped } = xmlFilesOf(readZip(buildSatPackage({ files: STAMPED_CFDI_FIXTURES })));
    expect(files.map((file) => file.name)).toEqual([
      ...STAMPED_CFDI_FIXTURES,
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml',
      'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml.xml',
    ]);
    expect(skipped).toHaveLength(4);
  });
});

describe('e-mailed AttachedDocuments', () => {
  const attached = fixture('dian/constructed-attached-document-invoice.xml');
  const zip = writeZip([
    { name: 'ad0900123456.xml', data: attached },
    { name: 'fv0900123456.pdf', data: '%PDF-1.4 ...' },
    { name: '__MACOSX/._ad0900123456.xml', data: 'x' },
  ]);

  it('parses the message and its base64 attachments', () => {
    const message = parseMail(
      buildMail({ subject: 'Factura SETP990000008 — ñandú', attachments: [{ name: 'z0900123456.zip', data: zip }] }),
    );
    expect(message.subject).toBe('Factura SETP990000008 — ñandú');
    const [attachment] = attachmentsOf(message);
    expect(attachment!.fileName).toBe('z0900123456.zip');
    expect(Buffer.from(attachment!.data).equals(Buffer.from(zip))).toBe(true);
  });

  it('finds the XML in the ZIP, passes over the PDF, and counts the junk', () => {
    const found = documentsInMailboxItem(
      'new/1700000000.M1P1.host',
      buildMail({
        attachments: [
          { name: 'z.zip', data: zip },
          { name: 'logo.png', data: 'png' },
        ],
      }),
    );
    expect(found.files.map((file) => file.name)).toEqual(['new/1700000000.M1P1.host/z.zip/ad0900123456.xml']);
    expect(Buffer.from(found.files[0]!.bytes).equals(Buffer.from(attached))).toBe(true);
    expect(found.skipped).toEqual([
      { name: 'new/1700000000.M1P1.host/z.zip/__MACOSX/._ad0900123456.xml', reason: 'macos_metadata' },
    ]);
  });

  it('opens nested ZIPs and messages inside ZIPs, and bare files dropped in the mailbox', () => {
    const nested = writeZip([
      { name: 'inner.zip', data: zip },
      { name: 'forwarded.eml', data: buildMail({ attachments: [{ name: 'x.xml', data: attached }] }) },
    ]);
    expect(documentsInMailboxItem('outer.zip', nested).files.map((file) => file.name)).toEqual([
      'outer.zip/inner.zip/ad0900123456.xml',
      'outer.zip/forwarded.eml/x.xml',
    ]);
    expect(documentsInMailboxItem('dropped.xml', attached).files).toHaveLength(1);
    expect(documentsInMailboxItem('broken.zip', new TextEncoder().encode('PK nonsense')).skipped[0]).toMatchObject({
      reason: 'unreadable',
    });
  });

  it('decodes RFC 2047 words in headers', () => {
    expect(decodeWords('=?iso-8859-1?Q?Factura_n=FAmero_1?= =?UTF-8?B?w7E=?=')).toBe('Factura número 1ñ');
  });
});
