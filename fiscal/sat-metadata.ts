// SAT's bulk-download metadata (fiscal-rules §6): a text file, one header line naming the columns
// (`Uuid~RfcEmisor~NombreEmisor~RfcReceptor~NombreReceptor~RfcPac~FechaEmision~FechaCertificacionSat~Monto~
// EfectoComprobante~Estatus~FechaCancelacion`), then one CFDI per line, fields separated by `~`, lines ended by CRLF
// or LF. `Estatus` 0 is a cancelled CFDI, with `FechaCancelacion`; 1 is a current (vigente) one.
//
// Read as a stream, line by line: a package lists up to a million CFDI, so no file is ever held whole. Each line is
// capped (`maxLineBytes`): past it, the rest of the line is passed over unread and the line is reported. A line that
// cannot be read (fields missing, a UUID or a status that is not one, a date that is not a date) is reported with its
// line number and the others go on. Node's readline has no cap on a line, and csv-parse's cap keeps accumulating the
// record it has refused, so the split into lines is done here, over bytes; the fields are a plain split on `~`.
//
// SAT's own quirk (see phpcfdi/sat-ws-descarga-masiva's MetadataPreprocessor): when the lines end with CRLF, a field
// may hold a bare LF, which does not end the line. The end of line is therefore the one the header line ends with.
import { FiscalDocumentError } from './errors.ts';
import { mexicanDateTime } from './dates.ts';
import type { IntakeLimits } from './intake-limits.ts';
import { isMacMetadata } from './package-entries.ts';
import { MEXICO_CITY } from './sync-window.ts';
import { EntryRefused, zipEntries, type ZipSource } from './zip-reader.ts';

/** How SAT's metadata file starts (after a byte-order mark, if any): what tells it from any other file. */
export const SAT_METADATA_SIGNATURE = 'Uuid~RfcEmisor~';

/** The columns the product reads; the others (names, amounts, dates of issue) are SAT's and are not needed. */
const REQUIRED_COLUMNS = ['Uuid', 'RfcEmisor', 'RfcReceptor', 'Estatus', 'FechaCancelacion'] as const;
type Column = (typeof REQUIRED_COLUMNS)[number];

export interface SatMetadataLimits {
  /** Longest line read; a longer one is reported and passed over. */
  maxLineBytes: number;
}

/** A SAT line is a few hundred bytes (names are up to 300 characters); this leaves room and bounds a hostile one. */
export const DEFAULT_SAT_METADATA_LIMITS: SatMetadataLimits = { maxLineBytes: 16 * 1024 };

/** One CFDI as SAT's metadata states it. */
export interface SatMetadataRecord {
  /** The line it is on (the header is line 1). */
  line: number;
  /** The folio fiscal (TimbreFiscalDigital UUID), lowercase, as documents store it. */
  uuid: string;
  issuerRfc: string;
  receiverRfc: string;
  status: 'active' | 'canceled';
  /** When SAT cancelled it, as ISO 8601 with Mexico City's offset (SAT's clock); null for a current CFDI. */
  canceledAt: string | null;
}

/** A line that could not be read, and why. */
export interface MalformedLine {
  line: number;
  reason: string;
}

export type SatMetadataItem = { record: SatMetadataRecord } | { malformed: MalformedLine };

/** The file does not start with SAT's metadata header: it is something else. */
export class NotSatMetadata extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotSatMetadata';
  }
}

const BOM = [0xef, 0xbb, 0xbf];
const LF = 0x0a;
const CR = 0x0d;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const SAT_DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const windows1252 = new TextDecoder('windows-1252');

/** Whether a file's first bytes are SAT's metadata header (a UTF-8 BOM allowed). */
export function looksLikeSatMetadata(head: Uint8Array): boolean {
  const start = head[0] === BOM[0] && head[1] === BOM[1] && head[2] === BOM[2] ? 3 : 0;
  const signature = Buffer.from(SAT_METADATA_SIGNATURE, 'ascii');
  return Buffer.from(head.buffer, head.byteOffset + start, Math.max(0, head.byteLength - start))
    .subarray(0, signature.byteLength)
    .equals(signature);
}

/** A line's text: UTF-8 as SAT writes it; bytes that are not UTF-8 are read as Windows-1252 rather than refused. */
function decode(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    return windows1252.decode(bytes);
  }
}

/** A line as split from the bytes: its text, or the cap it passed. */
type RawLine = { line: number; bytes: Uint8Array } | { line: number; tooLong: true };

/**
 * Splits a stream of bytes into lines without ever holding more than one line (up to the cap). The end of line is
 * the header's: with CRLF, a bare LF inside a line is dropped, as SAT's own files need.
 */
async function* lines(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLong = false;
  /** The physical line being read, and the one the current record started on. */
  let physical = 1;
  let start = 1;
  let crlf: boolean | null = null;
  let lastByte = -1;

  const append = (part: Buffer) => {
    if (part.byteLength === 0) return;
    lastByte = part[part.byteLength - 1]!;
    if (tooLong) return;
    if (size + part.byteLength > maxLineBytes) {
      tooLong = true;
      parts = [];
      size = 0;
      return;
    }
    parts.push(part);
    size += part.byteLength;
  };
  const finish = (): RawLine => {
    const done: RawLine = tooLong ? { line: start, tooLong: true } : { line: start, bytes: joined() };
    parts = [];
    size = 0;
    tooLong = false;
    lastByte = -1;
    start = physical;
    return done;
  };
  const joined = (): Uint8Array => {
    const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, size);
    return bytes.byteLength && bytes[bytes.byteLength - 1] === CR ? bytes.subarray(0, bytes.byteLength - 1) : bytes;
  };

  for await (const chunk of chunks) {
    const buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let from = 0;
    for (let at = buffer.indexOf(LF, from); at !== -1; at = buffer.indexOf(LF, from)) {
      append(buffer.subarray(from, at));
      from = at + 1;
      const endsWithCr = lastByte === CR;
      crlf ??= endsWithCr;
      physical += 1;
      // A bare LF in a CRLF file is inside a field: the line goes on.
      if (crlf && !endsWithCr) continue;
      yield finish();
    }
    append(buffer.subarray(from));
  }
  if (size > 0 || tooLong) yield finish();
}

/** SAT's `YYYY-MM-DD HH:MM:SS` in Mexico City time, as ISO 8601 with its offset; null when it is not such a date. */
function satDateTime(value: string, line: number): string | null {
  if (!SAT_DATE_TIME.test(value)) return null;
  try {
    return mexicanDateTime(value.replace(' ', 'T'), MEXICO_CITY, 'FechaCancelacion', `line ${line}`);
  } catch (error) {
    if (error instanceof FiscalDocumentError) return null;
    throw error;
  }
}

/** One data line as a record, or why it cannot be one. */
function readLine(line: number, text: string, columns: Record<Column, number>, width: number): SatMetadataItem {
  const malformed = (reason: string): SatMetadataItem => ({ malformed: { line, reason } });
  const fields = text.split('~');
  if (fields.length !== width)
    return malformed(`has ${fields.length} fields where the header names ${width} (separated by ~)`);
  const field = (column: Column) => fields[columns[column]]!.trim();
  const uuid = field('Uuid');
  if (!UUID.test(uuid)) return malformed(`Uuid ${JSON.stringify(uuid.slice(0, 60))} is not a UUID`);
  const issuerRfc = field('RfcEmisor').toUpperCase();
  if (!issuerRfc) return malformed('RfcEmisor is empty');
  const estatus = field('Estatus');
  if (estatus !== '0' && estatus !== '1')
    return malformed(`Estatus ${JSON.stringify(estatus.slice(0, 20))} is neither 0 (cancelled) nor 1 (current)`);
  let canceledAt: string | null = null;
  if (estatus === '0') {
    const written = field('FechaCancelacion');
    canceledAt = satDateTime(written, line);
    if (!canceledAt)
      return malformed(
        `Estatus 0 (cancelled) needs FechaCancelacion as YYYY-MM-DD HH:MM:SS, found ${JSON.stringify(written.slice(0, 40))}`,
      );
  }
  return {
    record: {
      line,
      uuid: uuid.toLowerCase(),
      issuerRfc,
      receiverRfc: field('RfcReceptor').toUpperCase(),
      status: estatus === '0' ? 'canceled' : 'active',
      canceledAt,
    },
  };
}

/**
 * Reads SAT's metadata file from a stream of its bytes: each CFDI line as a record, each line that cannot be read as
 * a malformed line (with its number), in file order. Blank lines are passed over. Throws NotSatMetadata when the
 * first line is not SAT's header, or lacks a column the product reads.
 */
export async function* readSatMetadata(
  chunks: AsyncIterable<Uint8Array>,
  limits: SatMetadataLimits = DEFAULT_SAT_METADATA_LIMITS,
): AsyncGenerator<SatMetadataItem> {
  let columns: Record<Column, number> | null = null;
  let width = 0;
  for await (const raw of lines(chunks, limits.maxLineBytes)) {
    if (!columns) {
      if ('tooLong' in raw) throw new NotSatMetadata(`The first line is longer than ${limits.maxLineBytes} bytes`);
      const header = decode(raw.bytes).replace(/^\uFEFF/, '');
      if (!header.startsWith(SAT_METADATA_SIGNATURE))
        throw new NotSatMetadata(`The first line is not SAT's metadata header (${SAT_METADATA_SIGNATURE}...)`);
      const names = header.split('~').map((name) => name.trim());
      const missing = REQUIRED_COLUMNS.filter((column) => !names.includes(column));
      if (missing.length) throw new NotSatMetadata(`SAT's metadata header lacks ${missing.join(', ')}`);
      columns = Object.fromEntries(REQUIRED_COLUMNS.map((column) => [column, names.indexOf(column)])) as Record<
        Column,
        number
      >;
      width = names.length;
      continue;
    }
    if ('tooLong' in raw) {
      yield { malformed: { line: raw.line, reason: `is longer than ${limits.maxLineBytes} bytes` } };
      continue;
    }
    const text = decode(raw.bytes);
    if (text.trim() === '') continue;
    yield readLine(raw.line, text, columns, width);
  }
  if (!columns) throw new NotSatMetadata('The file is empty');
}

/** Why an entry of a metadata package is passed over. */
export type MetadataSkipReason =
  'macos_metadata' | 'empty' | 'not_metadata' | 'unreadable' | 'too_large' | 'unsafe_name';

/** One entry of a metadata package: passed over with its reason, or read line by line. */
export type MetadataPackageEntry =
  | { name: string; skipped: MetadataSkipReason; detail?: string }
  | {
      name: string;
      /** Its lines, as they inflate; throws NotSatMetadata (not a metadata file) or EntryRefused (damaged, a cap). */
      items(): AsyncGenerator<SatMetadataItem>;
    };

/**
 * The entries of a SAT metadata package (a ZIP of `.txt` files, as SAT's sample `metadata.zip`): macOS metadata, empty
 * files and files not named `.txt` are passed over without inflating; a `.txt` is read as a stream, so a file of a
 * million lines takes the memory of one. Each entry must be read, or passed, before the next is asked for.
 */
export async function* metadataPackageEntries(
  source: ZipSource,
  limits: IntakeLimits,
  lineLimits: SatMetadataLimits = DEFAULT_SAT_METADATA_LIMITS,
): AsyncGenerator<MetadataPackageEntry> {
  for await (const entry of zipEntries(source, limits)) {
    if (entry.directory) continue;
    const { name } = entry;
    if (isMacMetadata(name)) yield { name, skipped: 'macos_metadata' };
    else if (entry.declaredSize === 0) yield { name, skipped: 'empty' };
    else if (!/\.txt$/i.test(name)) yield { name, skipped: 'not_metadata', detail: 'not a .txt file' };
    else yield { name, items: () => readSatMetadata(entry.stream(), lineLimits) };
  }
}

/** Why reading a metadata entry stopped, as a reason to count, or null for an error that is not the entry's. */
export function metadataEntryRefusal(error: unknown): { reason: MetadataSkipReason; detail: string } | null {
  if (error instanceof NotSatMetadata) return { reason: 'not_metadata', detail: error.message };
  if (error instanceof EntryRefused)
    return { reason: error.refusal.reason as MetadataSkipReason, detail: error.refusal.detail };
  return null;
}
