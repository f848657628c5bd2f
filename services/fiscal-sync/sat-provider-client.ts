// The adapter to the SAT extraction provider: a third-party REST API in front of SAT's bulk download (request, verify,
// download). Three calls: create an extraction of received CFDI for an RFC and a period (idempotent by key), as XML or
// as SAT's metadata, read it (SAT's EstadoSolicitud and CodigoEstadoSolicitud, the package ids), and download one
// package (a ZIP of CFDI XML, or of metadata text files) to a file.
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApplicationFailure } from '@temporalio/common';
import { pastCap } from '../../fiscal/intake-limits.ts';
import type { SatExtractionView } from '../../fiscal/sat-request-state.ts';
import { MAX_ANSWER_BYTES, readTextUpTo } from '../../platform/outside-http.ts';

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
  /** Writes the package to `destination`, streamed: a package is far larger than what a worker may hold. */
  downloadPackage(extractionId: string, packageId: string, destination: string): Promise<void>;
}

const REQUEST_TIMEOUT_MS = 30_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const unavailable = (message: string) => ApplicationFailure.retryable(message, 'SatProviderUnavailable');

/** The provider refused the request for good: `code` is its error code (e.g. invalid_credentials). */
export const providerRefused = (code: string, message: string) =>
  ApplicationFailure.nonRetryable(message, 'SatProviderRefused', { code });

/** A client of the provider at `baseUrl`; packages are read up to `maxPackageBytes` (INTAKE_MAX_PACKAGE_BYTES). */
export function satProviderClient(baseUrl: string, maxPackageBytes: number): SatProviderClient {
  const url = (path: string) => {
    if (!baseUrl)
      throw ApplicationFailure.nonRetryable('SAT_PROVIDER_URL is not configured', 'SatProviderRefused', {
        code: 'provider_not_configured',
      });
    return new URL(path, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  };

  const send = async (target: URL, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(target, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS), redirect: 'manual' });
    } catch (thrown) {
      const cause = thrown as Error;
      throw unavailable(
        cause.name === 'TimeoutError'
          ? `The SAT provider did not answer within ${REQUEST_TIMEOUT_MS / 1000} s`
          : `The SAT provider is unreachable: ${cause.message}`,
      );
    }
  };

  const failure = async (response: Response, what: string): Promise<never> => {
    const { text } = await readTextUpTo(response, MAX_ANSWER_BYTES);
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
      throw ApplicationFailure.nonRetryable(`${what}: ${message}`, 'SatExtractionNotFound', {
        code: 'provider_extraction_not_found',
      });
    throw providerRefused(code, `The SAT provider refused ${what}: ${message}`);
  };

  const extraction = async (response: Response, what: string): Promise<SatExtraction> => {
    if (!response.ok) return failure(response, what);
    let body: unknown;
    try {
      const { text, complete } = await readTextUpTo(response, MAX_ANSWER_BYTES);
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
      const response = await send(url('v1/extractions'), {
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
      return extraction(response, format === 'xml' ? 'the extraction request' : 'the metadata extraction request');
    },
    async getExtraction(id) {
      return extraction(
        await send(url(`v1/extractions/${encodeURIComponent(id)}`), { method: 'GET' }),
        `extraction ${id}`,
      );
    },
    async downloadPackage(extractionId, packageId, destination) {
      const response = await send(
        url(`v1/extractions/${encodeURIComponent(extractionId)}/packages/${encodeURIComponent(packageId)}`),
        { method: 'GET', headers: { accept: 'application/zip' } },
      );
      // A package that is gone (expired at SAT, purged by the provider) will not come back.
      if (response.status === 404 || response.status === 410)
        throw providerRefused(
          'package_unavailable',
          `Package ${packageId} is no longer available (HTTP ${response.status})`,
        );
      if (!response.ok) return failure(response, `package ${packageId}`);
      await savePackage(response, packageId, maxPackageBytes, destination);
    },
  };
}

/**
 * Writes the package's bytes to `destination`, counted as they arrive: a Content-Length past the cap is refused before
 * reading, and a body that runs past it (chunked, or longer than announced) is cut off there.
 */
async function savePackage(response: Response, packageId: string, maxBytes: number, destination: string) {
  const tooLarge = (what: string) =>
    providerRefused(
      'package_too_large',
      `Package ${packageId} ${what} ${pastCap('packageBytes', { packageBytes: maxBytes })}`,
    );
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > maxBytes) {
    await response.body?.cancel();
    throw tooLarge(`is ${declared} bytes,`);
  }
  let total = 0;
  async function* capped(body: AsyncIterable<Uint8Array>) {
    for await (const chunk of body) {
      total += chunk.byteLength;
      // Throwing here ends the pipeline, which cancels the download.
      if (total > maxBytes) throw tooLarge('runs');
      yield chunk;
    }
  }
  try {
    await pipeline(Readable.from(response.body ?? []), capped, createWriteStream(destination));
  } catch (error) {
    if (error instanceof ApplicationFailure) throw error;
    throw unavailable(`The download of package ${packageId} broke off: ${(error as Error).message}`);
  }
}
