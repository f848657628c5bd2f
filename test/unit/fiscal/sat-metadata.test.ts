// SAT's metadata file as SAT delivers it, built here at run time: CRLF or LF, a BOM or none, a bare LF inside a field,
// malformed lines among good ones, a line past the cap, and a file far larger than what is held, read as a stream.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { zipSync } from 'fflate';
import { satMetadataLine as row } from '../../helpers/sat-metadata-lines.ts';
import { describe, expect, it } from 'vitest';
import { DEFAULT_INTAKE_LIMITS } from '../../../fiscal/intake-limits.ts';
import {
  looksLikeSatMetadata,
  metadataEntryRefusal,
  metadataPackageEntries,
  NotSatMetadata,
  readSatMetadata,
  type SatMetadataItem,
} from '../../../fiscal/sat-metadata.ts';

const SAMPLE_PACKAGE = new URL('../../fixtures/sat-descarga-masiva/metadata.zip', import.meta.url).pathname;

const HEADER =
  'Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~EfectoComprobante~Estatus~FechaCancelacion';

/** Text given in chunks of `size` bytes, the way a file or an inflating entry hands it over. */
async function* chunked(text: string | Uint8Array, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

async function read(source: AsyncIterable<Uint8Array>, maxLineBytes?: number): Promise<SatMetadataItem[]> {
  const items: SatMetadataItem[] = [];
  for await (const item of readSatMetadata(source, maxLineBytes ? { maxLineBytes } : undefined)) items.push(item);
  return items;
}

describe("SAT's metadata file", () => {
  const active = randomUUID();
  const canceled = randomUUID();

  it("reads SAT's own sample (phpcfdi fixture): LF, no trailing end of line, current CFDI", async () => {
    const sample = readFileSync(new URL('../../fixtures/sat-descarga-masiva/metadata.txt', import.meta.url));
    expect(looksLikeSatMetadata(sample)).toBe(true);
    expect(await read(chunked(sample, 64))).toEqual([
      {
        record: {
          line: 2,
          uuid: 'e7215e3b-2dc5-4a40-ab10-c902ff9258df',
          issuerRfc: 'XAXX010101000',
          receiverRfc: 'XAXX010101001',
          status: 'active',
          canceledAt: null,
        },
      },
      { record: expect.objectContaining({ line: 3, uuid: '129c4d12-1415-4ace-be12-34e71c4eab4e' }) },
    ]);
  });

  it.each([
    ['CRLF', '\r\n'],
    ['LF', '\n'],
  ])('reads a cancellation with its date in Mexico City time (%s)', async (_name, eol) => {
    const text = `\uFEFF${HEADER}${eol}${row(active, '1')}${eol}${row(canceled, '0', '2026-11-25 09:30:00')}${eol}`;
    expect(await read(chunked(text))).toEqual([
      { record: expect.objectContaining({ line: 2, uuid: active, status: 'active', canceledAt: null }) },
      {
        record: {
          line: 3,
          uuid: canceled,
          issuerRfc: 'H&E951128469',
          receiverRfc: 'KIJ0906199R1',
          status: 'canceled',
          canceledAt: '2026-11-25T09:30:00-06:00',
        },
      },
    ]);
  });

  it('keeps a CRLF line whole across a bare LF inside a field, as SAT writes some names', async () => {
    const broken = row(canceled, '0', '2026-11-25 09:30:00').replace('HERRERIA &', 'HERRERIA\n&');
    const text = `${HEADER}\r\n${broken}\r\n${row(active, '1')}\r\n`;
    const items = await read(chunked(text, 5));
    expect(items).toEqual([
      { record: expect.objectContaining({ line: 2, uuid: canceled, status: 'canceled' }) },
      // The record after it starts on the fourth physical line of the file.
      { record: expect.objectContaining({ line: 4, uuid: active }) },
    ]);
  });

  it('names each malformed line by its number and still reads every other line', async () => {
    const lines = [
      HEADER,
      row(active, '1'),
      'not~a~metadata~line',
      row('not-a-uuid', '1'),
      row(randomUUID(), '7'),
      row(randomUUID(), '0', ''),
      row(randomUUID(), '0', '25/11/2026 09:30'),
      row(randomUUID(), '1', '', ''),
      '',
      row(canceled, '0', '2026-11-25 09:30:00'),
    ];
    const items = await read(chunked(lines.join('\r\n')));
    expect(items.filter((item) => 'record' in item).map((item) => 'record' in item && item.record.line)).toEqual([
      2, 10,
    ]);
    expect(items.flatMap((item) => ('malformed' in item ? [item.malformed] : []))).toEqual([
      { line: 3, reason: 'has 4 fields where the header names 12 (separated by ~)' },
      { line: 4, reason: 'Uuid "NOT-A-UUID" is not a UUID' },
      { line: 5, reason: 'Estatus "7" is neither 0 (cancelled) nor 1 (current)' },
      { line: 6, reason: 'Estatus 0 (cancelled) needs FechaCancelacion as YYYY-MM-DD HH:MM:SS, found ""' },
      {
        line: 7,
        reason: 'Estatus 0 (cancelled) needs FechaCancelacion as YYYY-MM-DD HH:MM:SS, found "25/11/2026 09:30"',
      },
      { line: 8, reason: 'RfcEmisor is empty' },
    ]);
  });

  it('reads names that are not UTF-8 as Windows-1252 instead of refusing the line', async () => {
    const latin = Buffer.concat([
      Buffer.from(`${HEADER}\n`),
      Buffer.from(row(canceled, '0', '2026-11-25 09:30:00', 'MUÑ010101AB1'), 'latin1'),
    ]);
    expect(await read(chunked(latin))).toEqual([
      { record: expect.objectContaining({ uuid: canceled, issuerRfc: 'MUÑ010101AB1' }) },
    ]);
  });

  it('refuses a file that is not SAT metadata, by its first line', async () => {
    expect(looksLikeSatMetadata(Buffer.from('<?xml version="1.0"?>'))).toBe(false);
    expect(looksLikeSatMetadata(Buffer.from(`\uFEFF${HEADER}`))).toBe(true);
    await expect(read(chunked('This is not an CSV file, is created to test content filter\n'))).rejects.toThrow(
      NotSatMetadata,
    );
    await expect(read(chunked('Uuid~RfcEmisor~NombreEmisor\n'))).rejects.toThrow(
      "SAT's metadata header lacks RfcReceptor, Estatus, FechaCancelacion",
    );
    await expect(read(chunked(''))).rejects.toThrow('The file is empty');
  });

  it('reads a huge file as a stream, passing over a line past the cap without holding it', async () => {
    const lineCount = 200_000;
    const longLineBytes = 64 * 1024 * 1024;
    const canceledUuid = randomUUID();
    // Made as it is read: the whole file (about 110 MB) never exists at once.
    async function* huge(): AsyncGenerator<Uint8Array> {
      yield Buffer.from(`${HEADER}\r\n`);
      const block = Buffer.alloc(64 * 1024, 'x');
      yield Buffer.from(`${row(randomUUID(), '1')}~`);
      for (let written = 0; written < longLineBytes; written += block.byteLength) yield block;
      yield Buffer.from('\r\n');
      let batch: string[] = [];
      for (let n = 0; n < lineCount; n++) {
        batch.push(n === lineCount - 1 ? row(canceledUuid, '0', '2026-11-25 09:30:00') : row(randomUUID(), '1'));
        if (batch.length === 1000) {
          yield Buffer.from(`${batch.join('\r\n')}\r\n`);
          batch = [];
        }
      }
    }
    const before = process.memoryUsage();
    let records = 0;
    let peak = 0;
    const malformed: unknown[] = [];
    let last: unknown;
    for await (const item of readSatMetadata(huge())) {
      if ('record' in item) {
        records += 1;
        last = item.record;
      } else malformed.push(item.malformed);
      if (records % 10_000 === 0) {
        const now = process.memoryUsage();
        peak = Math.max(peak, now.heapUsed + now.arrayBuffers - before.heapUsed - before.arrayBuffers);
      }
    }
    expect(records).toBe(lineCount);
    expect(malformed).toEqual([{ line: 2, reason: 'is longer than 16384 bytes' }]);
    expect(last).toMatchObject({ line: lineCount + 2, uuid: canceledUuid, status: 'canceled' });
    // Holding the long line alone would take 64 MB.
    expect(peak).toBeLessThan(48 * 1024 * 1024);
  });
});

describe('a metadata package', () => {
  it("reads SAT's sample package: the metadata file line by line, the junk passed over with its reason", async () => {
    const found: Record<string, unknown> = {};
    for await (const entry of metadataPackageEntries({ path: SAMPLE_PACKAGE }, DEFAULT_INTAKE_LIMITS)) {
      if ('skipped' in entry) {
        found[entry.name] = entry.skipped;
        continue;
      }
      try {
        const items: SatMetadataItem[] = [];
        for await (const item of entry.items()) items.push(item);
        found[entry.name] = items.map((item) => ('record' in item ? item.record.uuid : item.malformed));
      } catch (error) {
        found[entry.name] = metadataEntryRefusal(error)?.reason;
      }
    }
    expect(found).toEqual({
      '00000000-0000-0000-0000-000000000000_00.txt': 'not_metadata',
      '45C5C344-DA01-497A-9271-5AA3852EE6AE_01.txt': [
        'e7215e3b-2dc5-4a40-ab10-c902ff9258df',
        '129c4d12-1415-4ace-be12-34e71c4eab4e',
      ],
      '__MACOSX/._45C5C344-DA01-497A-9271-5AA3852EE6AE_01.txt': 'macos_metadata',
      'empty-file': 'empty',
      'other.txt': 'not_metadata',
    });
  });

  it('streams an entry far past the per-entry cap, and stops a damaged one where it breaks', async () => {
    const lines = Array.from({ length: 20_000 }, (_, n) =>
      row(randomUUID(), n === 19_999 ? '0' : '1', '2026-11-25 09:30:00'),
    );
    const text = Buffer.from(`${HEADER}\r\n${lines.join('\r\n')}\r\n`);
    const zip = zipSync({ 'metadata_01.txt': new Uint8Array(text) });
    let records = 0;
    for await (const entry of metadataPackageEntries(zip, { ...DEFAULT_INTAKE_LIMITS, entryBytes: 1024 * 1024 }))
      if ('items' in entry) for await (const item of entry.items()) if ('record' in item) records += 1;
    expect(text.byteLength).toBeGreaterThan(1024 * 1024);
    expect(records).toBe(20_000);

    // The CRC-32 stored for the entry no longer matches its bytes: read to the end, then refused as damaged.
    const damaged = new Uint8Array(zip);
    const central = Buffer.from(damaged).lastIndexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
    damaged[central + 16] = damaged[central + 16]! ^ 0xff;
    const refusals: unknown[] = [];
    let read = 0;
    for await (const entry of metadataPackageEntries(damaged, DEFAULT_INTAKE_LIMITS)) {
      if (!('items' in entry)) continue;
      try {
        for await (const item of entry.items()) if ('record' in item) read += 1;
      } catch (error) {
        refusals.push(metadataEntryRefusal(error));
      }
    }
    expect(read).toBe(20_000);
    expect(refusals).toEqual([{ reason: 'unreadable', detail: 'damaged entry: its CRC-32 does not match' }]);
  });
});
