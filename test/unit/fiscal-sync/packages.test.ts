import { readFileSync } from 'node:fs';
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INTAKE_LIMITS } from '../../../fiscal/intake-limits.ts';
import { intakeLimitsFromEnv } from '../../../services/fiscal-sync/intake-settings.ts';
import { mailAttachments } from '../../../fiscal/mail-reader.ts';
import { countSkips } from '../../../fiscal/package-entries.ts';
import { documentsInMailboxItem, xmlFilesOfPackage } from '../../helpers/package-files.ts';
import { ArchiveRefused, looksLikeZip, zipEntries } from '../../../fiscal/zip-reader.ts';
import { buildMail } from '../../../simulators/dian-mailbox/mail.ts';
import { buildSatPackage, STAMPED_CFDI_FIXTURES } from '../../../simulators/sat-provider/server.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url);
const fixture = (path: string) => new Uint8Array(readFileSync(new URL(path, FIXTURES)));
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
const limits = DEFAULT_INTAKE_LIMITS;

/** Every entry of an archive with what reading it gave. */
async function readAll(zip: Uint8Array, caps = limits) {
  const read = [];
  for await (const entry of zipEntries(zip, caps))
    read.push({ name: entry.name, directory: entry.directory, read: entry.directory ? null : await entry.read() });
  return read;
}

describe('ZIP reading', () => {
  it("reads SAT's sample package (phpcfdi fixture) entry by entry, directories included", async () => {
    const entries = await readAll(fixture('sat-descarga-masiva/cfdi.zip'));
    expect(entries.map((entry) => [entry.name, entry.directory])).toEqual([
      ['00000000-0000-0000-0000-000000000000.xml', false],
      ['__MACOSX/', true],
      ['__MACOSX/.aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml', false],
      ['aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml', false],
      ['aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml.xml', false],
      ['empty-file', false],
      ['other.txt', false],
    ]);
    const cfdi = entries.find((entry) => entry.name === 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.xml')!.read!;
    expect('bytes' in cfdi && cfdi.bytes.byteLength).toBe(2599);
    expect('bytes' in cfdi && text(cfdi.bytes)).toContain('<cfdi:Comprobante');
  });

  it('reads the package inside the SAT download response (base64 Paquete)', async () => {
    const soap = readFileSync(new URL('sat-descarga-masiva/download-response-with-package.xml', FIXTURES), 'utf8');
    const zip = new Uint8Array(Buffer.from(/<Paquete>([^<]+)<\/Paquete>/.exec(soap)![1]!, 'base64'));
    const [entry] = await readAll(zip);
    expect(entry!.name).toBe('4abf0f69-8e7d-42bd-ac5f-787275eb52d2.xml');
    expect(entry!.read).toEqual({ bytes: expect.any(Uint8Array) });
    expect(text((entry!.read as { bytes: Uint8Array }).bytes)).toMatch(/^<cfdi:Comprobante .*Version="3.3"/);
  });

  it('reads what another writer wrote, and refuses what is not a ZIP as a whole', async () => {
    const zip = zipSync({
      'a.xml': new TextEncoder().encode('<a/>'),
      'dir/': new Uint8Array(),
      'empty.txt': new Uint8Array(),
    });
    expect(looksLikeZip(zip)).toBe(true);
    expect(await readAll(zip)).toEqual([
      { name: 'a.xml', directory: false, read: { bytes: new TextEncoder().encode('<a/>') } },
      { name: 'dir/', directory: true, read: null },
      { name: 'empty.txt', directory: false, read: { bytes: new Uint8Array() } },
    ]);
    const notZip = readAll(new TextEncoder().encode('not a zip at all'));
    await expect(notZip).rejects.toBeInstanceOf(ArchiveRefused);
    await expect(notZip).rejects.toMatchObject({ refusal: { reason: 'unreadable' } });
  });

  it('refuses a damaged entry alone, the others are read', async () => {
    const zip = zipSync({
      'a.xml': new TextEncoder().encode('<a>'.repeat(100)),
      'b.xml': new TextEncoder().encode('<b/>'),
    });
    zip[40] = zip[40]! ^ 0xff; // inside a.xml's compressed bytes
    const [a, b] = await readAll(zip);
    expect(a).toMatchObject({
      name: 'a.xml',
      read: { reason: 'unreadable', detail: expect.stringMatching(/^damaged entry/) },
    });
    expect(b).toEqual({ name: 'b.xml', directory: false, read: { bytes: new TextEncoder().encode('<b/>') } });
  });

  it('refuses a stored entry whose declared size is wrong, and reads the next one', async () => {
    const zip = Buffer.from(zipSync({ 'a.xml': strToU8('<a/>'), 'b.xml': strToU8('<b/>') }, { level: 0 }));
    const directory = zip.readUInt32LE(zip.byteLength - 22 + 16);
    zip.writeUInt32LE(9, directory + 24); // a.xml's uncompressed size in the central directory: 9 instead of 4
    const [a, b] = await readAll(new Uint8Array(zip));
    expect(a!.read).toEqual({ reason: 'unreadable', detail: 'damaged entry: 4 bytes where it declares 9' });
    expect(b!.read).toEqual({ bytes: strToU8('<b/>') });
  });

  it('caps what an entry may inflate to, naming the cap', async () => {
    const zip = zipSync({
      'bomb.xml': new TextEncoder().encode('<'.repeat(1_000_000)),
      'ok.xml': new TextEncoder().encode('<ok/>'),
    });
    const [bomb, ok] = await readAll(zip, { ...limits, entryBytes: 1000 });
    expect(bomb!.read).toEqual({
      reason: 'too_large',
      detail: 'declares 1000000 bytes, at or past the 1000 bytes per-entry cap (INTAKE_MAX_ENTRY_BYTES)',
    });
    expect(ok!.read).toEqual({ bytes: new TextEncoder().encode('<ok/>') });
  });

  it('caps the entries an archive may list', async () => {
    const zip = zipSync({ 'a.xml': new Uint8Array(1), 'b.xml': new Uint8Array(1), 'c.xml': new Uint8Array(1) });
    await expect(readAll(zip, { ...limits, archiveEntries: 2 })).rejects.toMatchObject({
      refusal: {
        reason: 'too_large',
        detail: 'lists 3 entries, past the 2 per-archive entry cap (INTAKE_MAX_ARCHIVE_ENTRIES)',
      },
    });
  });
});

describe('intake caps', () => {
  it('come from the environment, and a value that is not a positive whole number is refused', () => {
    expect(intakeLimitsFromEnv({})).toEqual(DEFAULT_INTAKE_LIMITS);
    expect(DEFAULT_INTAKE_LIMITS).toMatchObject({ entryBytes: 20 * 1024 * 1024, nestingDepth: 4 });
    expect(intakeLimitsFromEnv({ INTAKE_MAX_ENTRY_BYTES: '1024', INTAKE_MAX_NESTING_DEPTH: '2' })).toEqual({
      ...DEFAULT_INTAKE_LIMITS,
      entryBytes: 1024,
      nestingDepth: 2,
    });
    expect(() => intakeLimitsFromEnv({ INTAKE_MAX_MESSAGE_BYTES: '10mb' })).toThrow(/INTAKE_MAX_MESSAGE_BYTES/);
    expect(() => intakeLimitsFromEnv({ INTAKE_MAX_ARCHIVE_ENTRIES: '0' })).toThrow(/INTAKE_MAX_ARCHIVE_ENTRIES/);
  });
});

describe('package filtering', () => {
  it('keeps the XML files and skips junk, counted by reason', async () => {
    const { files, skipped } = await xmlFilesOfPackage(fixture('sat-descarga-masiva/cfdi.zip'), limits);
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

  it("skips the metadata package's junk too", async () => {
    const { files, skipped } = await xmlFilesOfPackage(fixture('sat-descarga-masiva/metadata.zip'), limits);
    expect(files).toEqual([]);
    expect(countSkips({}, skipped)).toEqual({ not_xml: 3, macos_metadata: 1, empty: 1 });
  });

  it("the simulator's package holds the stamped fixtures first, then the sample junk", async () => {
    const { files, skipped } = await xmlFilesOfPackage(buildSatPackage({ files: STAMPED_CFDI_FIXTURES }), limits);
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
  const zip = zipSync({
    'ad0900123456.xml': attached,
    'fv0900123456.pdf': new TextEncoder().encode('%PDF-1.4 ...'),
    '__MACOSX/._ad0900123456.xml': new TextEncoder().encode('x'),
  });

  it('takes the base64 attachments out of the message, byte for byte', async () => {
    const attachments = await mailAttachments(
      buildMail({ subject: 'Factura SETP990000008 — ñandú', attachments: [{ name: 'z0900123456.zip', data: zip }] }),
      limits,
    );
    expect(attachments).toEqual([
      { name: 'z0900123456.zip', contentType: 'application/zip', bytes: zip, refusal: null },
    ]);
  });

  it('finds the XML in the ZIP, passes over the PDF, and counts the junk', async () => {
    const found = await documentsInMailboxItem(
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

  it('opens nested ZIPs and messages inside ZIPs, and bare files dropped in the mailbox', async () => {
    const nested = zipSync({
      'inner.zip': zip,
      'forwarded.eml': buildMail({ attachments: [{ name: 'x.xml', data: attached }] }),
    });
    expect((await documentsInMailboxItem('outer.zip', nested)).files.map((file) => file.name)).toEqual([
      'outer.zip/inner.zip/ad0900123456.xml',
      'outer.zip/forwarded.eml/x.xml',
    ]);
    expect((await documentsInMailboxItem('dropped.xml', attached)).files).toHaveLength(1);
    expect((await documentsInMailboxItem('broken.zip', new TextEncoder().encode('PK nonsense'))).skipped).toEqual([
      {
        name: 'broken.zip',
        reason: 'unreadable',
        detail: expect.stringMatching(/^not a ZIP archive, or a truncated one/),
      },
    ]);
  });

  it('stops at the nesting cap, naming it, and keeps what lies within', async () => {
    let archive: Uint8Array = zipSync({ 'deep.xml': attached });
    for (let level = 0; level < 4; level++) archive = zipSync({ [`level${level}.zip`]: archive, 'here.xml': attached });
    const found = await documentsInMailboxItem('top.zip', archive, { ...limits, nestingDepth: 3 });
    expect(found.files.map((file) => file.name)).toEqual([
      'top.zip/level3.zip/level2.zip/here.xml',
      'top.zip/level3.zip/here.xml',
      'top.zip/here.xml',
    ]);
    expect(found.skipped).toEqual([
      {
        name: 'top.zip/level3.zip/level2.zip/level1.zip',
        reason: 'too_large',
        detail: 'nested past the 3 nesting cap (INTAKE_MAX_NESTING_DEPTH)',
      },
    ]);
  });
});
