import { once } from 'node:events';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Refusal } from '../../../platform/refusal.ts';
import { pastCap } from '../../../fiscal/intake-limits.ts';
import { satTransferFromEnv } from '../../../services/fiscal-sync/intake-settings.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../platform/temp-dir.ts';
import {
  DEFAULT_SAT_TRANSFER,
  MAX_CUTS_IN_A_ROW,
  satProviderClient,
  type SatTransferSettings,
} from '../../../services/fiscal-sync/sat-provider-client.ts';

const MB = 1024 * 1024;
const CAP = MB;
/** Short waits, so that stalls and resumptions take milliseconds here. */
const TRANSFER: SatTransferSettings = {
  ...DEFAULT_SAT_TRANSFER,
  timeoutMs: 300,
  minBytesPerSecond: 64 * 1024,
  floorWindowMs: 1_000,
  resumePauseMs: 10,
};
/** A package one byte short of the cap, the largest that passes it. */
const SIZE = CAP - 1;
const PACKAGE = Buffer.from(Array.from({ length: SIZE }, (_, at) => (at * 7) % 251));
const PAST_CAP = pastCap('packageBytes', { packageBytes: CAP });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends `bytes` in slices of `slice` every `everyMs`, then ends (or stops without ending, for a stall). */
async function paced(response: ServerResponse, bytes: Buffer, slice: number, everyMs: number, end = true) {
  for (let at = 0; at < bytes.byteLength && !response.destroyed; at += slice) {
    response.write(bytes.subarray(at, at + slice));
    await sleep(everyMs);
  }
  if (end) response.end();
}

/** Writes `total` bytes in 64 KB chunks, waiting for the client to take each; answers how many went out. */
async function stream(response: ServerResponse, total: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x50);
  let sent = 0;
  while (sent < total && !response.destroyed) {
    sent += chunk.byteLength;
    if (!response.write(chunk)) await Promise.race([once(response, 'drain'), once(response, 'close')]);
  }
  response.end();
  return sent;
}

describe('SAT package download: the cap (INTAKE_MAX_PACKAGE_BYTES), stalls and resumptions', () => {
  let server: Server;
  let base: string;
  let streamed: Promise<number> | undefined;
  let folder: string;
  /** The Range header of each request, by package. */
  const ranges = new Map<string, (string | null)[]>();

  beforeAll(async () => {
    server = createServer((request, response) => {
      const packageId = request.url!.split('/').pop()!;
      const seen = ranges.get(packageId) ?? [];
      seen.push(request.headers.range ?? null);
      ranges.set(packageId, seen);
      const resume = /^bytes=(\d+)-$/.exec(request.headers.range ?? '');
      const from = resume ? Number(resume[1]) : 0;
      response.setHeader('content-type', 'application/zip');
      if (packageId === 'slow') {
        // 1 MB over about 2.3 s, more than 7 times the timeout, never pausing long.
        response.setHeader('content-length', String(SIZE));
        void paced(response, PACKAGE, 32 * 1024, 75);
        return;
      }
      if (packageId === 'stalls' || packageId === 'stalls-no-ranges' || packageId === 'other-range') {
        // The first answer stops at 400,000 bytes and says nothing more.
        const ranged = resume && packageId !== 'stalls-no-ranges';
        const start = ranged ? from : 0;
        if (ranged) {
          const shown = packageId === 'other-range' ? 0 : start;
          response.writeHead(206, {
            'content-range': `bytes ${shown}-${SIZE - 1}/${SIZE}`,
            'content-length': String(SIZE - shown),
            etag: '"v1"',
          });
          response.end(PACKAGE.subarray(shown));
          return;
        }
        response.writeHead(200, { 'content-length': String(SIZE), etag: '"v1"', 'accept-ranges': 'bytes' });
        if (seen.length === 1) response.write(PACKAGE.subarray(0, 400_000));
        else response.end(PACKAGE);
        return;
      }
      if (packageId === 'trickle') {
        // 2 KB every 100 ms (20 KB/s): never silent for the timeout, always under the floor.
        response.setHeader('content-length', String(SIZE));
        void paced(response, PACKAGE, 2048, 100, false);
        return;
      }
      if (packageId === 'announced') {
        response.setHeader('content-length', String(64 * MB));
        response.end();
      } else if (packageId === 'chunked') streamed = stream(response, 64 * MB);
      else if (packageId === 'cut') {
        response.setHeader('content-length', String(SIZE));
        response.write(Buffer.alloc(CAP / 2, 0x50), () => response.destroy());
      } else if (packageId === 'exact') {
        response.setHeader('content-length', String(CAP));
        response.end(Buffer.alloc(CAP, 0x50));
      } else response.end(Buffer.alloc(SIZE, 0x50));
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    folder = tempDir('ap-sat-download-');
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(folder, { recursive: true, force: true });
  });

  const download = (packageId: string) =>
    satProviderClient(base, CAP, TRANSFER).downloadPackage('e1', packageId, join(folder, `${packageId}.zip`));
  const saved = (packageId: string) => readFileSync(join(folder, `${packageId}.zip`));

  it('writes a package up to the cap to its file', async () => {
    await download('within');
    expect(statSync(join(folder, 'within.zip')).size).toBe(SIZE);
  });

  it('reads a body slower in all than the timeout, as long as it never pauses that long', async () => {
    const started = performance.now();
    expect(await download('slow')).toEqual({ bytes: SIZE, complete: true, resumed: 0 });
    expect(performance.now() - started).toBeGreaterThan(6 * TRANSFER.timeoutMs);
    expect(saved('slow').equals(PACKAGE)).toBe(true);
  });

  it('cuts a body that stalls and resumes it where it stopped, with a Range request', async () => {
    expect(await download('stalls')).toEqual({ bytes: SIZE, complete: true, resumed: 1 });
    expect(ranges.get('stalls')).toEqual([null, 'bytes=400000-']);
    expect(saved('stalls').equals(PACKAGE)).toBe(true);
  });

  it('starts again from the first byte when the provider ignores the range, or answers another', async () => {
    expect(await download('stalls-no-ranges')).toEqual({ bytes: SIZE, complete: true, resumed: 1 });
    expect(ranges.get('stalls-no-ranges')).toEqual([null, 'bytes=400000-']);
    expect(saved('stalls-no-ranges').equals(PACKAGE)).toBe(true);
    // A 206 that does not start where the file stopped is not appended: the package is asked for whole.
    expect(await download('other-range')).toEqual({ bytes: SIZE, complete: true, resumed: 2 });
    expect(ranges.get('other-range')).toEqual([null, 'bytes=400000-', null]);
    expect(saved('other-range').equals(PACKAGE)).toBe(true);
  });

  it('cuts a body that trickles under the floor, however steadily', async () => {
    await expect(download('trickle')).rejects.toMatchObject({
      retryable: true,
      code: 'SatProviderUnavailable',
      message: expect.stringMatching(/broke off 6 times in a row, at byte \d+: \d+ bytes came in 1 s, under the floor/),
    });
    expect(ranges.get('trickle')).toHaveLength(MAX_CUTS_IN_A_ROW + 1);
  }, 20_000);

  it('answers a download that keeps breaking off as a failure to retry', async () => {
    await expect(download('cut')).rejects.toMatchObject({
      retryable: true,
      code: 'SatProviderUnavailable',
      message: expect.stringContaining(`The download of package cut broke off ${MAX_CUTS_IN_A_ROW + 1} times in a row`),
    });
    // Resumed each time where it stopped (about half way, what reached this side before the server let go); this server
    // ignores ranges, so each answer starts again.
    expect(ranges.get('cut')).toEqual([
      null,
      ...Array.from({ length: MAX_CUTS_IN_A_ROW }, () => expect.stringMatching(/^bytes=\d{6}-$/)),
    ]);
  });

  it('refuses a Content-Length past the cap before reading', async () => {
    const refused = download('announced');
    await expect(refused).rejects.toBeInstanceOf(Refusal);
    await expect(refused).rejects.toMatchObject({
      retryable: false,
      details: { code: 'package_too_large' },
      message: `Package announced is ${64 * MB} bytes, ${PAST_CAP}`,
    });
    // The cap is the first size refused.
    await expect(download('exact')).rejects.toMatchObject({
      details: { code: 'package_too_large' },
      message: `Package exact is ${CAP} bytes, ${PAST_CAP}`,
    });
  });

  it('counts a body without a length as it arrives, and stops reading at the cap', async () => {
    await expect(download('chunked')).rejects.toMatchObject({
      retryable: false,
      details: { code: 'package_too_large' },
      message: `Package chunked runs ${PAST_CAP}`,
    });
    // The server saw the download abandoned: far less than the 64 MB it had went out (socket buffers aside).
    expect(await streamed).toBeLessThan(32 * MB);
  });
});

describe('SAT transfer settings', () => {
  it('reads the timeout and the floor from the environment, refusing what is not a positive whole number', () => {
    expect(satTransferFromEnv({})).toEqual(DEFAULT_SAT_TRANSFER);
    expect(satTransferFromEnv({ SAT_PROVIDER_TIMEOUT_MS: '5000', SAT_PROVIDER_MIN_BYTES_PER_SECOND: '65536' })).toEqual(
      {
        ...DEFAULT_SAT_TRANSFER,
        timeoutMs: 5000,
        minBytesPerSecond: 65536,
      },
    );
    expect(() => satTransferFromEnv({ SAT_PROVIDER_TIMEOUT_MS: '30s' })).toThrow(/SAT_PROVIDER_TIMEOUT_MS/);
    expect(() => satTransferFromEnv({ SAT_PROVIDER_MIN_BYTES_PER_SECOND: '0' })).toThrow(
      /SAT_PROVIDER_MIN_BYTES_PER_SECOND/,
    );
  });
});
