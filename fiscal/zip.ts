// A minimal ZIP reader and writer over node:zlib: the central directory names the entries, each one is stored or
// deflated. Enough for SAT bulk-download packages and the ZIPs suppliers e-mail (AttachedDocument + PDF); ZIP64,
// encryption and other compression methods are reported per entry instead of read. Sizes are capped, so a small
// archive cannot expand into gigabytes.
import { crc32, deflateRawSync, inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  directory: boolean;
  /** Uncompressed size as the archive declares it. */
  size: number;
  /** The bytes, unless `problem` says why they could not be read. */
  data: Uint8Array | null;
  problem: 'encrypted' | 'unsupported_compression' | 'too_large' | 'corrupt' | null;
}

export class ZipFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ZipFormatError';
  }
}

export interface ZipLimits {
  /** Largest entry read, uncompressed (default 20 MB: a CFDI is a few KB, an invoice PDF a few hundred). */
  maxEntryBytes?: number;
  /** Most entries read (default 250,000: a SAT package holds up to 200,000 CFDI). */
  maxEntries?: number;
}

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const utf8 = new TextDecoder('utf-8');

/** Reads every entry of a ZIP archive; throws ZipFormatError when the bytes are not a ZIP this reader understands. */
export function readZip(bytes: Uint8Array, limits: ZipLimits = {}): ZipEntry[] {
  const maxEntryBytes = limits.maxEntryBytes ?? 20 * 1024 * 1024;
  const maxEntries = limits.maxEntries ?? 250_000;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfCentralDirectory(view);
  const count = view.getUint16(end + 10, true);
  const directorySize = view.getUint32(end + 12, true);
  const directoryOffset = view.getUint32(end + 16, true);
  if (count === 0xffff || directoryOffset === 0xffffffff) throw new ZipFormatError('ZIP64 archives are not supported');
  if (count > maxEntries) throw new ZipFormatError(`The archive has ${count} entries; at most ${maxEntries} are read`);
  if (directoryOffset + directorySize > bytes.byteLength)
    throw new ZipFormatError('The central directory lies outside the archive');

  const entries: ZipEntry[] = [];
  let at = directoryOffset;
  for (let index = 0; index < count; index++) {
    if (at + 46 > bytes.byteLength || view.getUint32(at, true) !== CENTRAL)
      throw new ZipFormatError(`Central directory entry ${index} is damaged`);
    const flags = view.getUint16(at + 8, true);
    const method = view.getUint16(at + 10, true);
    const crc = view.getUint32(at + 16, true);
    const compressedSize = view.getUint32(at + 20, true);
    const size = view.getUint32(at + 24, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const localOffset = view.getUint32(at + 42, true);
    const name = utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength));
    at += 46 + nameLength + extraLength + commentLength;

    const directory = name.endsWith('/');
    const entry: ZipEntry = { name, directory, size, data: null, problem: null };
    entries.push(entry);
    if (directory) continue;
    if (flags & 0x1) entry.problem = 'encrypted';
    else if (method !== 0 && method !== 8) entry.problem = 'unsupported_compression';
    else if (size > maxEntryBytes || compressedSize === 0xffffffff) entry.problem = 'too_large';
    else entry.data = entryData(bytes, view, localOffset, compressedSize, method, size, crc, maxEntryBytes);
    if (!entry.data && !entry.problem) entry.problem = 'corrupt';
  }
  return entries;
}

function findEndOfCentralDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of up to 65,535.
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 0xffff); at--) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  throw new ZipFormatError('Not a ZIP archive (no end of central directory)');
}

function entryData(
  bytes: Uint8Array,
  view: DataView,
  localOffset: number,
  compressedSize: number,
  method: number,
  size: number,
  crc: number,
  maxBytes: number,
): Uint8Array | null {
  if (localOffset + 30 > bytes.byteLength || view.getUint32(localOffset, true) !== LOCAL) return null;
  const start = localOffset + 30 + view.getUint16(localOffset + 26, true) + view.getUint16(localOffset + 28, true);
  if (start + compressedSize > bytes.byteLength) return null;
  const raw = bytes.subarray(start, start + compressedSize);
  let data: Uint8Array;
  try {
    data = method === 0 ? raw : new Uint8Array(inflateRawSync(raw, { maxOutputLength: Math.max(1, maxBytes) }));
  } catch {
    return null;
  }
  return data.byteLength === size && crc32(data) === crc ? data : null;
}

/** Writes entries into a ZIP archive (deflated; directories when the name ends in `/`). */
export function writeZip(entries: { name: string; data?: Uint8Array | string; modifiedAt?: Date }[]): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = new TextEncoder().encode(entry.name);
    const data =
      typeof entry.data === 'string' ? new TextEncoder().encode(entry.data) : (entry.data ?? new Uint8Array());
    const deflate = data.byteLength > 0;
    const stored = deflate ? new Uint8Array(deflateRawSync(data)) : data;
    const crc = crc32(data);
    const { time, date } = dosDateTime(entry.modifiedAt ?? new Date('2026-01-01T00:00:00Z'));
    const local = new Uint8Array(30 + name.byteLength);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, LOCAL, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(6, 0x0800, true);
    lv.setUint16(8, deflate ? 8 : 0, true);
    lv.setUint16(10, time, true);
    lv.setUint16(12, date, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, stored.byteLength, true);
    lv.setUint32(22, data.byteLength, true);
    lv.setUint16(26, name.byteLength, true);
    local.set(name, 30);
    const central = new Uint8Array(46 + name.byteLength);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, CENTRAL, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(8, 0x0800, true);
    cv.setUint16(10, deflate ? 8 : 0, true);
    cv.setUint16(12, time, true);
    cv.setUint16(14, date, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, stored.byteLength, true);
    cv.setUint32(24, data.byteLength, true);
    cv.setUint16(28, name.byteLength, true);
    cv.setUint32(42, offset, true);
    central.set(name, 46);
    locals.push(local, stored);
    centrals.push(central);
    offset += local.byteLength + stored.byteLength;
  }
  const directorySize = centrals.reduce((sum, central) => sum + central.byteLength, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, EOCD, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, directorySize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + directorySize + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

function dosDateTime(instant: Date): { time: number; date: number } {
  return {
    time: (instant.getUTCHours() << 11) | (instant.getUTCMinutes() << 5) | Math.floor(instant.getUTCSeconds() / 2),
    date: ((instant.getUTCFullYear() - 1980) << 9) | ((instant.getUTCMonth() + 1) << 5) | instant.getUTCDate(),
  };
}

/** Whether bytes start like a ZIP archive (a local file header, or the end record of an empty one). */
export function looksLikeZip(bytes: Uint8Array): boolean {
  return (
    bytes.byteLength >= 4 &&
    bytes[0] === 0x50 &&
    bytes[1] === 0x4b &&
    ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))
  );
}
