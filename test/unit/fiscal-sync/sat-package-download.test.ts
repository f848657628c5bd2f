import { once } from 'node:events';
import { rmSync, statSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../../platform/temp-dir.ts';
import { satProviderClient } from '../../../services/fiscal-sync/sat-provider-client.ts';

const MB = 1024 * 1024;
const CAP = MB;

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

describe('SAT package download cap (INTAKE_MAX_PACKAGE_BYTES)', () => {
  let server: Server;
  let base: string;
  let streamed: Promise<number> | undefined;
  let folder: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const packageId = request.url!.split('/').pop();
      response.setHeader('content-type', 'application/zip');
      if (packageId === 'announced') {
        response.setHeader('content-length', String(64 * MB));
        response.end();
      } else if (packageId === 'chunked') streamed = stream(response, 64 * MB);
      else if (packageId === 'cut') {
        response.setHeader('content-length', String(CAP));
        response.write(Buffer.alloc(CAP / 2, 0x50), () => response.destroy());
      } else response.end(Buffer.alloc(CAP, 0x50));
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
    satProviderClient(base, CAP).downloadPackage('e1', packageId, join(folder, `${packageId}.zip`));

  it('writes a package up to the cap to its file', async () => {
    await download('within');
    expect(statSync(join(folder, 'within.zip')).size).toBe(CAP);
  });

  it('answers a download that breaks off as a failure to retry', async () => {
    await expect(download('cut')).rejects.toMatchObject({
      nonRetryable: false,
      type: 'SatProviderUnavailable',
      message: expect.stringContaining('The download of package cut broke off'),
    });
  });

  it('refuses a Content-Length past the cap before reading', async () => {
    const refused = download('announced');
    await expect(refused).rejects.toBeInstanceOf(ApplicationFailure);
    await expect(refused).rejects.toMatchObject({
      nonRetryable: true,
      details: [{ code: 'package_too_large' }],
      message: `Package announced is ${64 * MB} bytes, past the 1 MB per-package cap (INTAKE_MAX_PACKAGE_BYTES)`,
    });
  });

  it('counts a body without a length as it arrives, and stops reading at the cap', async () => {
    await expect(download('chunked')).rejects.toMatchObject({
      nonRetryable: true,
      details: [{ code: 'package_too_large' }],
      message: 'Package chunked runs past the 1 MB per-package cap (INTAKE_MAX_PACKAGE_BYTES)',
    });
    // The server saw the download abandoned: far less than the 64 MB it had went out (socket buffers aside).
    expect(await streamed).toBeLessThan(32 * MB);
  });
});
