// The adapter to the SAT extraction provider: a third-party REST API in front of SAT's bulk download (request, verify,
// download). Three calls: create an extraction of received CFDI for an RFC and a period (idempotent by key), as XML or
// as SAT's metadata, read it (SAT's EstadoSolicitud and CodigoEstadoSolicitud, the package ids), and download one
// package (a ZIP of CFDI XML, or of metadata text files) to a file. A request is timed by its pauses, never by its
// length: the answer's first byte, then each next one, must come within the timeout, and a package must keep a floor
// rate; a package that stalls or crawls is resumed where it stopped (HTTP Range) or downloaded again.
import { open, type FileHandle } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { Refusal } from '../../platform/refusal.ts';
import { pastCap } from '../../fiscal/intake-limits.ts';
import type { SatExtractionView } from '../../fiscal/sat-request-state.ts';
import { MAX_ANSWER_BYTES, readTextUpTo } from '../../platform/outside-http.ts';
import { isObject } from '../../platform/json.ts';

export interface SatExtraction extends SatExtractionView {
  id: string;
  cfdiCount: number | null;
  errorMessage: string | null;
}

/** What an extraction asks SAT for: the CFDI themselves, or their metadata (each one's status, current or cancelled). */
export type ExtractionFormat = 'xml' | 'metadata';

export interface SatProviderClient {
  createExtraction(input: {
    rfc: string;
    from: string;
    to: string;
    idempotencyKey: string;
    format?: ExtractionFormat;
  }): Promise<SatExtraction>;
  getExtraction(id: string): Promise<SatExtraction>;
  /**
   * Writes the package to `destination`, streamed: a package is far larger than what a worker may hold. A body that
   * stalls or crawls is cut and resumed where it stopped (HTTP Range), or downloaded again when the provider ignores
   * ranges.
   */
  downloadPackage(extractionId: string, packageId: string, destination: string): Promise<DownloadedPackage>;
}

export interface DownloadedPackage {
  bytes: number;
  /** Whether the provider said how long the package is (Content-Length, Content-Range) and every byte came. */
  complete: boolean;
  /** The connections that broke off (stalled, too slow, cut) and were resumed or started again. */
  resumed: number;
}

/** How long the provider may keep a request waiting, and how slowly a package may arrive. */
export interface SatTransferSettings {
  /** Longest wait for an answer's first byte, and between two bytes of its body (`SAT_PROVIDER_TIMEOUT_MS`). */
  timeoutMs: number;
  /**
   * The floor a package's body must keep, averaged over each `floorWindowMs` (`SAT_PROVIDER_MIN_BYTES_PER_SECOND`):
   * a connection slower than that is cut and resumed, as a stalled one is.
   */
  minBytesPerSecond: number;
  floorWindowMs: number;
  /** The wait before resuming a cut download, times the cuts in a row. */
  resumePauseMs: number;
}

export const DEFAULT_SAT_TRANSFER: SatTransferSettings = {
  timeoutMs: 30_000,
  // 512 MB (the package cap) at this floor takes 68 minutes, within the 2 hours the package activity may take.
  minBytesPerSecond: 128 * 1024,
  floorWindowMs: 60_000,
  resumePauseMs: 1_000,
};

/**
 * Cuts in a row a download may take before its attempt fails (and the activity is retried from the start). A cut after
 * the download got a window's worth at the floor further than ever before starts the count again.
 */
export const MAX_CUTS_IN_A_ROW = 5;

const unavailable = (message: string) => Refusal.retryable('SatProviderUnavailable', message);

/** The provider refused the request for good: `code` is its error code (e.g. invalid_credentials). */
export const providerRefused = (code: string, message: string) =>
  new Refusal('SatProviderRefused', message, { details: { code } });

/**
 * A request's watch: the answer's first byte must come within `timeoutMs`, and each next byte of its body within as
 * long again (`touch` on each chunk); past that, or when `cut`, the request is aborted and `reason` says why.
 */
class Watch {
  readonly controller = new AbortController();
  reason: string | null = null;
  private readonly timer: NodeJS.Timeout;

  constructor(timeoutMs: number) {
    this.timer = setTimeout(() => this.cut(`nothing came for ${seconds(timeoutMs)}`), timeoutMs);
  }

  touch(): void {
    this.timer.refresh();
  }

  /** Aborts the request, saying why. */
  cut(reason: string): void {
    if (this.reason) return;
    this.reason = reason;
    this.end();
  }

  /** Stops watching and lets go of the connection (nothing once the body was read to its end). */
  end(): void {
    clearTimeout(this.timer);
    this.controller.abort(new Error(this.reason ?? 'done'));
  }
}

const seconds = (ms: number) => `${ms / 1000} s`;

/** A body's reader that keeps its watch alive with each chunk. */
const watched = (response: Response, watch: Watch) => ({
  body: response.body && {
    getReader() {
      const reader = response.body!.getReader();
      return {
        async read() {
          const chunk = await reader.read();
          watch.touch();
          return chunk;
        },
        cancel: () => reader.cancel(),
      };
    },
  },
});

/** A package download broke off (stalled, too slow, the connection lost): resumed, or its attempt fails. */
class Cut extends Error {}

/** A client of the provider at `baseUrl`; a package of `maxPackageBytes` or more (INTAKE_MAX_PACKAGE_BYTES) is refused. */
export function satProviderClient(
  baseUrl: string,
  maxPackageBytes: number,
  transfer: SatTransferSettings = DEFAULT_SAT_TRANSFER,
): SatProviderClient {
  const url = (path: string) => {
    if (!baseUrl)
      throw new Refusal('SatProviderRefused', 'SAT_PROVIDER_URL is not configured', {
        details: {
          code: 'provider_not_configured',
        },
      });
    return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  };

  /** Sends a request under its watch; the watch goes on over the body, until the caller stops it. */
  const send = async (target: URL, init: RequestInit): Promise<{ response: Response; watch: Watch }> => {
    const watch = new Watch(transfer.timeoutMs);
    try {
      const response = await fetch(target, { ...init, signal: watch.controller.signal, redirect: 'manual' });
      watch.touch();
      return { response, watch };
    } catch (thrown) {
      watch.end();
      throw unavailable(
        watch.reason
          ? `The SAT provider did not answer within ${seconds(transfer.timeoutMs)}`
          : `The SAT provider is unreachable: ${(thrown as Error).message}`,
      );
    }
  };

  /** An answer's text (up to MAX_ANSWER_BYTES), its body under the request's watch. */
  const answerText = async (response: Response, watch: Watch) => {
    try {
      return await readTextUpTo(watched(response, watch), MAX_ANSWER_BYTES);
    } catch (thrown) {
      throw unavailable(
        watch.reason
          ? `The SAT provider's answer stalled: ${watch.reason}`
          : `The SAT provider's answer broke off: ${(thrown as Error).message}`,
      );
    } finally {
      watch.end();
    }
  };

  const failure = async (response: Response, watch: Watch, what: string): Promise<never> => {
    const { text } = await answerText(response, watch);
    if (response.status === 408 || response.status === 429 || response.status >= 500)
      throw unavailable(`The SAT provider answered HTTP ${response.status} to ${what}`);
    let code = `http_${response.status}`;
    let message = text.slice(0, 300);
    try {
      const body = JSON.parse(text) as unknown;
      if (isObject(body) && isObject(body.error)) {
        if (typeof body.error.code === 'string') code = body.error.code;
        if (typeof body.error.message === 'string') message = body.error.message;
      }
    } catch {
      // not JSON: keep the text
    }
    if (response.status === 404)
      throw new Refusal('SatExtractionNotFound', `${what}: ${message}`, {
        details: {
          code: 'provider_extraction_not_found',
        },
      });
    throw providerRefused(code, `The SAT provider refused ${what}: ${message}`);
  };

  const extraction = async (
    { response, watch }: { response: Response; watch: Watch },
    what: string,
  ): Promise<SatExtraction> => {
    if (!response.ok) return failure(response, watch, what);
    const { text, complete } = await answerText(response, watch);
    let body: unknown;
    try {
      if (!complete) throw new Error('too large');
      body = JSON.parse(text);
    } catch {
      throw unavailable(
        `The SAT provider answered ${what} with something that is not JSON (or is over ${MAX_ANSWER_BYTES} bytes)`,
      );
    }
    if (!isObject(body) || typeof body.id !== 'string')
      throw unavailable(`The SAT provider answered ${what} without an extraction id`);
    const status = body.sat_request_status;
    return {
      id: body.id,
      satRequestStatus: typeof status === 'number' ? status : null,
      satStatusCode: typeof body.sat_status_code === 'string' ? body.sat_status_code : null,
      packageIds: Array.isArray(body.package_ids)
        ? body.package_ids.filter((id): id is string => typeof id === 'string')
        : [],
      cfdiCount: typeof body.cfdi_count === 'number' ? body.cfdi_count : null,
      errorCode: typeof body.error_code === 'string' ? body.error_code : null,
      errorMessage: typeof body.error_message === 'string' ? body.error_message : null,
    };
  };

  return {
    async createExtraction({ rfc, from, to, idempotencyKey, format = 'xml' }) {
      const sent = await send(url('v1/extractions'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        // Received CFDI as XML: SAT only serves received XML filtered to current (vigente) documents. Their metadata
        // is served whatever their status, which is what it is asked for: the cancelled ones.
        body: JSON.stringify(
          format === 'xml'
            ? { rfc, type: 'received', format, document_status: 'active', period: { from, to } }
            : { rfc, type: 'received', format, period: { from, to } },
        ),
      });
      return extraction(sent, format === 'xml' ? 'the extraction request' : 'the metadata extraction request');
    },
    async getExtraction(id) {
      return extraction(
        await send(url(`v1/extractions/${encodeURIComponent(id)}`), { method: 'GET' }),
        `extraction ${id}`,
      );
    },
    async downloadPackage(extractionId, packageId, destination) {
      const target = url(
        `v1/extractions/${encodeURIComponent(extractionId)}/packages/${encodeURIComponent(packageId)}`,
      );
      const file = await open(destination, 'w');
      try {
        return await download(packageId, target, file);
      } finally {
        await file.close();
      }
    },
  };

  /**
   * Downloads a package into `file`, resuming where a connection broke off: with `Range: bytes=<written>-` (and
   * `If-Range` with the first answer's ETag), appended on a 206 that starts there, started again on anything else.
   */
  async function download(packageId: string, target: URL, file: FileHandle): Promise<DownloadedPackage> {
    const tooLarge = (what: string) =>
      providerRefused(
        'package_too_large',
        `Package ${packageId} ${what} ${pastCap('packageBytes', { packageBytes: maxPackageBytes })}`,
      );
    /** How much further than ever a download must get before it breaks off for its cut to start the count again. */
    const windowBytes = (transfer.minBytesPerSecond * transfer.floorWindowMs) / 1000;
    let written = 0;
    let total: number | null = null;
    let validator: string | null = null;
    let resumed = 0;
    let inARow = 0;
    /** The furthest the file reached before a cut. */
    let furthest = 0;
    const startOver = async () => {
      written = 0;
      total = null;
      await file.truncate(0);
    };
    for (;;) {
      const resuming = written > 0;
      try {
        let sent: { response: Response; watch: Watch };
        try {
          sent = await send(target, {
            method: 'GET',
            headers: {
              accept: 'application/zip',
              ...(resuming ? { range: `bytes=${written}-`, ...(validator ? { 'if-range': validator } : {}) } : {}),
            },
          });
        } catch (error) {
          // The first request fails its attempt as any other call does; a resumption that fails is one more cut.
          if (resumed === 0) throw error;
          throw new Cut((error as Error).message);
        }
        const { response, watch } = sent;
        const drop = () => {
          watch.end();
          void response.body?.cancel().catch(() => {});
        };
        const { status } = response;
        // A package that is gone (expired at SAT, purged by the provider) will not come back.
        if (status === 404 || status === 410) {
          drop();
          throw providerRefused('package_unavailable', `Package ${packageId} is no longer available (HTTP ${status})`);
        }
        if (status === 206) {
          // Appended only where the file stopped (a first request's 206 must start at 0).
          const range = rangeOf(response.headers.get('content-range'));
          if (range?.start !== written) {
            drop();
            await startOver();
            throw new Cut(`the provider answered another range (${response.headers.get('content-range')})`);
          }
          total = range.total ?? total;
        } else if (response.ok) {
          // The whole package (a first request, or a provider that does not take ranges): from its first byte.
          await startOver();
          const length = Number(response.headers.get('content-length') ?? NaN);
          total = Number.isSafeInteger(length) && length >= 0 ? length : null;
          const etag = response.headers.get('etag');
          validator = etag && !etag.startsWith('W/') ? etag : null;
        } else if (resuming && (status === 416 || status === 408 || status === 429 || status >= 500)) {
          drop();
          // The range no longer fits the package (it changed): from the start.
          if (status === 416) await startOver();
          throw new Cut(`the provider answered HTTP ${status} to the resumption`);
        } else return await failure(response, watch, `package ${packageId}`);
        if (total !== null && total >= maxPackageBytes) {
          drop();
          throw tooLarge(`is ${total} bytes,`);
        }
        await receive(response, watch, async (chunk) => {
          if (written + chunk.byteLength >= maxPackageBytes) throw tooLarge('runs');
          await file.write(chunk, 0, chunk.byteLength, written);
          written += chunk.byteLength;
        });
        if (total !== null && written < total) throw new Cut(`the body ended at byte ${written} of ${total}`);
        return { bytes: written, complete: total !== null, resumed };
      } catch (error) {
        if (!(error instanceof Cut)) throw error;
        resumed += 1;
        // A cut after a window's worth of new bytes starts the count again; one short of it adds to it.
        inARow = written >= furthest + windowBytes ? 1 : inARow + 1;
        furthest = Math.max(furthest, written);
        if (inARow > MAX_CUTS_IN_A_ROW)
          throw unavailable(
            `The download of package ${packageId} broke off ${inARow} times in a row, at byte ${written}: ${error.message}`,
          );
        await delay(transfer.resumePauseMs * inARow);
      }
    }
  }

  /**
   * Reads a body chunk by chunk into `take`, under its watch (no pause longer than the timeout) and the floor (each
   * window must bring `minBytesPerSecond` on average). A body that breaks off is a Cut; what came before it was taken.
   */
  async function receive(response: Response, watch: Watch, take: (chunk: Uint8Array) => Promise<void>): Promise<void> {
    let brought = 0;
    let atLastCheck = 0;
    const floor = (transfer.minBytesPerSecond * transfer.floorWindowMs) / 1000;
    const checks = setInterval(() => {
      if (brought - atLastCheck < floor)
        watch.cut(
          `${brought - atLastCheck} bytes came in ${seconds(transfer.floorWindowMs)}, under the floor of ${transfer.minBytesPerSecond} bytes/s`,
        );
      atLastCheck = brought;
    }, transfer.floorWindowMs);
    try {
      if (!response.body) return;
      const reader = response.body.getReader();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (error) {
          throw new Cut(watch.reason ?? (error as Error).message);
        }
        if (chunk.done) return;
        await take(chunk.value);
        brought += chunk.value.byteLength;
        watch.touch();
      }
    } finally {
      clearInterval(checks);
      // A body not read to its end (past the cap, a failed write) is let go of.
      watch.end();
    }
  }
}

/** The start (and the total, when given) of a `Content-Range: bytes <start>-<end>/<total|*>`; null when it is not one. */
function rangeOf(header: string | null): { start: number; total: number | null } | null {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header?.trim() ?? '');
  if (!match) return null;
  return { start: Number(match[1]), total: match[3] === '*' ? null : Number(match[3]) };
}
