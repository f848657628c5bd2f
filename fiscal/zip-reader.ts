// Reads ZIP archives, held in memory or on disk, with yauzl: the central directory names the entries (ZIP64 and data
// descriptors included), and each entry is inflated through a stream whose bytes are counted against the caps as they come, so an
// archive's declared sizes are never what stops a bomb. What one entry cannot give (an unsafe name, encryption, a
// method other than stored or deflate, damage, a cap) refuses that entry alone. Entry names and the library's messages
// are made storable as they come out of it.
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { storableName, storableText } from './storable-text.ts';
import { pastCap, sizeCap, type IntakeLimits, type SizeCap } from './intake-limits.ts';
import type { EntryRefusal } from './package-entries.ts';

/** The inflation left to an archive and the archives nested in it (they share their outermost archive's cap). */
export interface InflateBudget {
  bytesLeft: number;
}

export const newBudget = (limits: IntakeLimits): InflateBudget => ({ bytesLeft: limits.archiveBytes });

/** An archive's bytes, or the path of a file holding them (a downloaded package, read without loading it). */
export type ZipSource = Uint8Array | { path: string };

export interface ZipEntryHandle {
  /** As the archive names it, made storable (controls escaped, length capped). */
  name: string;
  directory: boolean;
  /** The size the archive declares, inflated: what the entry is, not what reading it may take. */
  declaredSize: number;
  /** Inflates the entry, or says why it is refused: below the per-entry cap, or below `cap` when given. */
  read(cap?: SizeCap): Promise<{ bytes: Uint8Array } | EntryRefusal>;
  /**
   * Inflates the entry as a stream of chunks, for an entry read as it comes (SAT's metadata, a line at a time): counted
   * against the archive's inflation budget and the size the entry declares, its CRC-32 checked at the end, but not held
   * whole, so the per-entry cap does not apply. A refusal (before or while inflating) is thrown as EntryRefused.
   */
  stream(): AsyncGenerator<Uint8Array>;
}

/** Why one entry read as a stream cannot be read (on opening it, or part-way through). */
export class EntryRefused extends Error {
  readonly refusal: EntryRefusal;

  constructor(refusal: EntryRefusal) {
    super(refusal.detail);
    this.name = 'EntryRefused';
    this.refusal = refusal;
  }
}

/** Why a whole archive cannot be read: not a ZIP, truncated, too many entries, a damaged central directory. */
export class ArchiveRefused extends Error {
  readonly refusal: EntryRefusal;

  constructor(refusal: EntryRefusal, options?: ErrorOptions) {
    super(refusal.detail, options);
    this.name = 'ArchiveRefused';
    this.refusal = refusal;
  }
}

const STORED = 0;
const DEFLATED = 8;

/**
 * The entries of a ZIP archive, in central-directory order. Throws ArchiveRefused when the archive cannot be opened
 * or its directory breaks off (the entries yielded before that stand).
 */
export async function* zipEntries(
  source: ZipSource,
  limits: IntakeLimits,
  budget: InflateBudget = newBudget(limits),
): AsyncGenerator<ZipEntryHandle> {
  const zip = await openZip(source);
  try {
    if (zip.entryCount > limits.archiveEntries)
      throw new ArchiveRefused({
        reason: 'too_large',
        detail: `lists ${zip.entryCount} entries, ${pastCap('archiveEntries', limits)}`,
      });
    const spans = new DataSpans();
    const entries = zip.eachEntry();
    for (;;) {
      let next: IteratorResult<Entry>;
      try {
        next = await entries.next();
      } catch (error) {
        const detail = storableText(`damaged archive: ${(error as Error).message}`);
        throw new ArchiveRefused({ reason: 'unreadable', detail }, { cause: error });
      }
      if (next.done) return;
      const entry = next.value;
      // The name as written decides whether it is safe; the name kept is its storable form.
      const written = entryName(entry);
      yield {
        name: storableName(written),
        directory: written.endsWith('/'),
        declaredSize: entry.uncompressedSize,
        read: (cap = sizeCap('entryBytes', limits)) => readEntry(zip, entry, written, spans, cap, limits, budget),
        stream: () => streamEntry(zip, entry, written, spans, limits, budget),
      };
    }
  } finally {
    zip.close();
  }
}

const UTF8_FLAG = 0x800;
const UNICODE_PATH_FIELD = 0x7075;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decoded here rather than by yauzl, so that an unsafe name refuses its entry instead of the whole archive. A name
 * that declares neither UTF-8 nor a Unicode path is CP437 by the specification, but Info-ZIP and others on Linux and
 * macOS write their UTF-8 names that way: bytes that are valid UTF-8 are taken as UTF-8.
 */
function entryName(entry: Entry): string {
  const declared =
    (entry.generalPurposeBitFlag & UTF8_FLAG) !== 0 ||
    entry.extraFields.some((field) => field.id === UNICODE_PATH_FIELD);
  if (!declared) {
    try {
      return strictUtf8.decode(entry.fileNameRaw).replace(/\\/g, '/');
    } catch {
      // not UTF-8: CP437 below
    }
  }
  return yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, false);
}

async function openZip(source: ZipSource): Promise<ZipFile> {
  const options = {
    lazyEntries: true,
    decodeStrings: false,
    // Sizes are checked per entry below: yauzl's own check of a stored entry would end the whole archive.
    validateEntrySizes: false,
    autoClose: false,
  };
  try {
    if ('path' in source) return await yauzl.openPromise(source.path, options);
    return await yauzl.fromBufferPromise(Buffer.from(source.buffer, source.byteOffset, source.byteLength), options);
  } catch (error) {
    throw new ArchiveRefused(
      {
        reason: 'unreadable',
        detail: storableText(`not a ZIP archive, or a truncated one: ${(error as Error).message}`),
      },
      { cause: error },
    );
  }
}

/** What refuses an entry before any of it is inflated: its name, encryption, its compression method. */
function entryRefusal(entry: Entry, name: string): EntryRefusal | null {
  const unsafe = yauzl.validateFileName(name);
  if (unsafe !== null) return { reason: 'unsafe_name', detail: `refused name (${unsafe.replace(/:.*$/, '')})` };
  if (entry.isEncrypted()) return { reason: 'unreadable', detail: 'encrypted' };
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED)
    return { reason: 'unreadable', detail: `compression method ${entry.compressionMethod} is not supported` };
  return null;
}

/** Opens an entry's inflating stream, unless its bytes overlap another entry's or it is damaged. */
async function openEntry(zip: ZipFile, entry: Entry, spans: DataSpans): Promise<Readable | EntryRefusal> {
  try {
    const { fileDataStart } = await zip.readLocalFileHeaderPromise(entry, { minimal: true });
    // Entries sharing their bytes are how the smallest bombs multiply a deflate stream.
    if (!spans.add(entry.relativeOffsetOfLocalHeader, fileDataStart + entry.compressedSize))
      return { reason: 'unreadable', detail: "overlaps another entry's data" };
    return await zip.openReadStreamPromise(entry);
  } catch (error) {
    return { reason: 'unreadable', detail: storableText(`damaged entry: ${(error as Error).message}`) };
  }
}

async function readEntry(
  zip: ZipFile,
  entry: Entry,
  name: string,
  spans: DataSpans,
  cap: SizeCap,
  limits: IntakeLimits,
  budget: InflateBudget,
): Promise<{ bytes: Uint8Array } | EntryRefusal> {
  const refused = entryRefusal(entry, name);
  if (refused) return refused;
  // A declared size at a cap is refused without inflating; a smaller one is checked as the bytes come.
  if (entry.uncompressedSize >= cap.bytes)
    return { reason: 'too_large', detail: `declares ${entry.uncompressedSize} bytes, ${cap.named}` };
  const stream = await openEntry(zip, entry, spans);
  if ('reason' in stream) return stream;
  const read = await readCapped(stream, entry.uncompressedSize, cap, limits, budget);
  // yauzl leaves the CRC to its caller; a flipped bit that still inflates is caught here.
  if ('bytes' in read && crc32(read.bytes) !== entry.crc32)
    return { reason: 'unreadable', detail: 'damaged entry: its CRC-32 does not match' };
  return read;
}

async function* streamEntry(
  zip: ZipFile,
  entry: Entry,
  name: string,
  spans: DataSpans,
  limits: IntakeLimits,
  budget: InflateBudget,
): AsyncGenerator<Uint8Array> {
  const refused = entryRefusal(entry, name);
  if (refused) throw new EntryRefused(refused);
  if (entry.uncompressedSize >= budget.bytesLeft)
    throw new EntryRefused({
      reason: 'too_large',
      detail: `declares ${entry.uncompressedSize} bytes, and the archive would inflate ${pastCap('archiveBytes', limits)}`,
    });
  const stream = await openEntry(zip, entry, spans);
  if ('reason' in stream) throw new EntryRefused(stream);
  let total = 0;
  let crc = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      budget.bytesLeft -= chunk.byteLength;
      if (budget.bytesLeft <= 0)
        throw new EntryRefused({
          reason: 'too_large',
          detail: `the archive inflates ${pastCap('archiveBytes', limits)}`,
        });
      if (total > entry.uncompressedSize)
        throw new EntryRefused({
          reason: 'unreadable',
          detail: `inflates past the ${entry.uncompressedSize} bytes it declares`,
        });
      crc = crc32(chunk, crc);
      yield chunk;
    }
  } catch (error) {
    if (error instanceof EntryRefused) throw error;
    throw new EntryRefused({
      reason: 'unreadable',
      detail: storableText(`damaged entry: ${(error as Error).message}`),
    });
  } finally {
    stream.destroy();
  }
  if (total !== entry.uncompressedSize)
    throw new EntryRefused({
      reason: 'unreadable',
      detail: `damaged entry: ${total} bytes where it declares ${entry.uncompressedSize}`,
    });
  if (crc !== entry.crc32)
    throw new EntryRefused({ reason: 'unreadable', detail: 'damaged entry: its CRC-32 does not match' });
}

/**
 * Collects a stream's bytes, stopping as soon as they reach the entry's cap or the archive's budget. They are copied
 * into one buffer of the size the entry declares (below the cap), so that an entry takes its size once, not twice.
 */
async function readCapped(
  stream: Readable,
  declared: number,
  cap: SizeCap,
  limits: IntakeLimits,
  budget: InflateBudget,
): Promise<{ bytes: Uint8Array } | EntryRefusal> {
  const bytes = Buffer.allocUnsafeSlow(declared);
  let total = 0;
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      budget.bytesLeft -= chunk.byteLength;
      if (total >= cap.bytes)
        return { reason: 'too_large', detail: `inflates to ${total} bytes or more, ${cap.named}` };
      if (budget.bytesLeft <= 0)
        return { reason: 'too_large', detail: `the archive inflates ${pastCap('archiveBytes', limits)}` };
      // Past the size it declares, the archive lies: stopped there rather than at the cap.
      if (total > declared) return { reason: 'unreadable', detail: `inflates past the ${declared} bytes it declares` };
      chunk.copy(bytes, total - chunk.byteLength);
    }
  } catch (error) {
    return { reason: 'unreadable', detail: storableText(`damaged entry: ${(error as Error).message}`) };
  } finally {
    stream.destroy();
  }
  if (total !== declared)
    return { reason: 'unreadable', detail: `damaged entry: ${total} bytes where it declares ${declared}` };
  return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, total) };
}

/** The byte ranges entries occupy, kept sorted; archives list them in order, so adding is an append. */
class DataSpans {
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];

  /** Adds [start, end); false when it overlaps a span already added. */
  add(start: number, end: number): boolean {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.starts[middle]! < start) low = middle + 1;
      else high = middle;
    }
    if (low > 0 && this.ends[low - 1]! > start) return false;
    if (low < this.starts.length && this.starts[low]! < end) return false;
    this.starts.splice(low, 0, start);
    this.ends.splice(low, 0, end);
    return true;
  }
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
