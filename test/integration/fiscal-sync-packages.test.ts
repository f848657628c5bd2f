// SAT packages as they really come: slowly, stalling mid-body, or not at all readable. A download is timed by the
// pauses in its body (5 s in the suite's worker, 30 s in production), never by its whole length; a body that stalls is
// resumed where it stopped (HTTP Range) or started again; a package too large or unreadable is refused for itself and
// the sync goes on with the next. Every package is built here; the SAT provider simulator sends it at a set rate,
// stalls, and honours or ignores ranges, as the test asks.
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../platform/temp-dir.ts';
import type { PackageRequest, SatScenario } from '../../simulators/sat-provider/server.ts';
import { STAMPED_CFDI_FIXTURES } from '../../simulators/sat-provider/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  FAST_FISCAL_SYNC_TIMING,
  latestRun,
  registerCredentials,
  satProvider,
  uniqueRfc,
  syncToTheEnd,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const MB = 1024 * 1024;
const FIXTURES = new URL('../fixtures/cfdi/', import.meta.url);

let api: TestApi;
let work: string;
beforeAll(async () => {
  api = await startTestApi({ config: { fiscalSync: FAST_FISCAL_SYNC_TIMING } });
  work = tempDir('ap-sat-packages-');
});
afterAll(async () => {
  await api.close();
  rmSync(work, { recursive: true, force: true });
});

/** A package on disk: the stamped CFDI fixtures (two invoices, a payment receipt) and an annex of `annexBytes` random bytes, stored. */
function packageWithAnnex(name: string, annexBytes: number): { path: string; size: number } {
  const entries: Record<string, Uint8Array | [Uint8Array, { level: 0 }]> = {};
  for (const file of STAMPED_CFDI_FIXTURES) entries[file] = readFileSync(new URL(file, FIXTURES));
  entries['anexo.pdf'] = [randomBytes(annexBytes), { level: 0 }];
  const path = join(work, name);
  const bytes = zipSync(entries);
  writeFileSync(path, bytes);
  return { path, size: bytes.byteLength };
}

/** A Mexican company whose syncs the simulator answers with `scenario`. */
async function mexicanCompany(scenario: SatScenario) {
  const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
  const rfc = uniqueRfc();
  await registerCredentials(api.orm, company, { ciecStatus: 'valid', rfc });
  await satProvider.behave(rfc, { polls: 1, ...scenario });
  return { company, apiKey, rfc };
}

/** The download requests of the CFDI extraction's packages (the metadata extraction's are left out). */
async function packageRequests(rfc: string): Promise<PackageRequest[]> {
  const extraction = (await satProvider.extractions(rfc)).find((one) => one.format === 'xml');
  return extraction!.packageRequests;
}

const documentsOf = async (apiKey: string) => expectStatus(await api.sdk(apiKey).listDocuments(), 200).items;

describe('slow and stalling SAT packages', () => {
  it('imports a 40 MB package sent at 1 MB/s, eight times longer than the request timeout', async () => {
    const { path, size } = packageWithAnnex('lento.zip', 40 * MB);
    const { company, apiKey, rfc } = await mexicanCompany({
      packages: [{ path }],
      delivery: { bytesPerSecond: MB },
    });
    const started = performance.now();
    const final = await syncToTheEnd(api.sdk(apiKey), 120_000);
    const seconds = (performance.now() - started) / 1000;
    console.info(
      `[fiscal-sync-packages] ${size} bytes at 1 MB/s: the sync took ${seconds.toFixed(1)} s (${(size / MB / seconds).toFixed(2)} MB/s in all)`,
    );
    expect(final).toMatchObject({ status: 'finished', fetching_status: 'finished', error_code: null });
    // Longer than the 5 s request timeout of the suite's worker, and than the whole-request 30 s it used to be.
    expect(seconds).toBeGreaterThan(size / MB);
    expect(await packageRequests(rfc)).toEqual([
      { packageId: expect.any(String), range: null, status: 200, sent: size, ended: true },
    ]);
    expect((await documentsOf(apiKey)).map((document) => document.fiscal_reference)).toHaveLength(2);
    expect((await latestRun(api.orm, company.id)).details).toMatchObject({
      documents_created: 2,
      payment_complements: 1,
      skipped: { not_xml: 1 },
    });
  }, 150_000);

  it('resumes a body that stalls with a Range request from the byte it stopped at, and imports the package once', async () => {
    const { path, size } = packageWithAnnex('se-detiene.zip', 3 * MB);
    const stallAt = 1_500_000;
    const { company, apiKey, rfc } = await mexicanCompany({
      packages: [{ path }],
      delivery: { stallAtByte: stallAt },
    });
    const final = await syncToTheEnd(api.sdk(apiKey), 60_000);
    expect(final).toMatchObject({ status: 'finished', fetching_status: 'finished', error_code: null });
    const [first, second, ...more] = await packageRequests(rfc);
    expect(more).toEqual([]);
    expect(first).toMatchObject({ range: null, status: 200, sent: stallAt, ended: false });
    expect(second).toMatchObject({ range: `bytes=${stallAt}-`, status: 206, sent: size - stallAt, ended: true });
    console.info(
      `[fiscal-sync-packages] stalled at byte ${stallAt} of ${size}; resumed with Range: ${second!.range} (${second!.sent} bytes more)`,
    );
    expect(await documentsOf(apiKey)).toHaveLength(2);
    expect((await latestRun(api.orm, company.id)).details).toMatchObject({
      documents_created: 2,
      documents_existing: 0,
      payment_complements: 1,
      skipped: { not_xml: 1 },
    });
  });

  it('downloads the package again from its first byte when the provider ignores ranges', async () => {
    const { path, size } = packageWithAnnex('sin-rangos.zip', 3 * MB);
    const { apiKey, rfc } = await mexicanCompany({
      packages: [{ path }],
      delivery: { stallAtByte: 1_500_000, ranges: false },
    });
    expect(await syncToTheEnd(api.sdk(apiKey), 60_000)).toMatchObject({
      status: 'finished',
      fetching_status: 'finished',
    });
    expect(await packageRequests(rfc)).toEqual([
      expect.objectContaining({ range: null, status: 200, sent: 1_500_000, ended: false }),
      expect.objectContaining({ range: 'bytes=1500000-', status: 200, sent: size, ended: true }),
    ]);
    expect(await documentsOf(apiKey)).toHaveLength(2);
  });
});

describe('a bad package', () => {
  it('is refused for itself, past the cap or unreadable, and the good one after it is imported in the same sync', async () => {
    // 600 MB of nothing (a sparse file), past the 512 MB package cap: refused on its Content-Length, never read.
    const oversized = join(work, 'enorme.zip');
    writeFileSync(oversized, 'PK');
    truncateSync(oversized, 600 * MB);
    const unreadable = join(work, 'roto.zip');
    writeFileSync(unreadable, randomBytes(64 * 1024));
    const { company, apiKey, rfc } = await mexicanCompany({
      packages: [{ path: oversized }, { path: unreadable }, { files: STAMPED_CFDI_FIXTURES }],
    });

    const final = await syncToTheEnd(api.sdk(apiKey), 60_000);
    expect(final).toMatchObject({ status: 'finished', fetching_status: 'finished', error_code: null });
    expect(await documentsOf(apiKey)).toHaveLength(2);
    const requests = await packageRequests(rfc);
    // Each package asked for once: the refused ones are not retried.
    expect(requests.map((request) => request.packageId)).toEqual([
      expect.stringMatching(/_01$/),
      expect.stringMatching(/_02$/),
      expect.stringMatching(/_03$/),
    ]);
    const [tooLarge, broken] = requests.map((request) => request.packageId);

    const refused = (await ops('fiscal', 'intake', '--company', company.id)).stdout.refused as {
      file: string;
      reason: string;
      detail: string;
    }[];
    expect(refused.filter((refusal) => refusal.reason.startsWith('package_'))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: tooLarge,
          reason: 'package_too_large',
          detail: expect.stringMatching(
            new RegExp(`^Package ${tooLarge} is ${600 * MB} bytes, .*INTAKE_MAX_PACKAGE_BYTES`),
          ),
        }),
        expect.objectContaining({ file: broken, reason: 'package_unreadable', detail: expect.any(String) }),
      ]),
    );
    const [run] = (await ops('fiscal', 'syncs', '--company', company.id)).stdout.syncs;
    expect(run).toMatchObject({
      status: 'finished',
      documents_imported: 2,
      details: { documents_created: 2, skipped: { package_too_large: 1, package_unreadable: 1 } },
    });
  });

  it('ends the fetching of a sync that fails on a package gone from the provider', async () => {
    const { company, apiKey, rfc } = await mexicanCompany({
      packages: [{ path: join(work, 'purgado.zip') }, { files: STAMPED_CFDI_FIXTURES }],
    });
    const final = await syncToTheEnd(api.sdk(apiKey), 60_000);
    expect(final).toMatchObject({ status: 'failed', fetching_status: 'finished', error_code: 'package_unavailable' });
    expect((await packageRequests(rfc)).map((request) => request.status)).toEqual([410]);
    expect((await latestRun(api.orm, company.id)).message).toMatch(/is no longer available \(HTTP 410\)/);
  });
});
