// Reception events as DIAN takes them: the company's certificate registered by an operator, each event signed
// XAdES-EPES and sent over SOAP with WS-Security to the DIAN simulator, which checks both signatures with xmlsec1;
// this test checks the received event with xmlsec1 again. Without a certificate that can sign, nothing is sent.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { expectStatus } from '@accounts-payable/client';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { setDianEventPerson } from '../../db/fiscal/dian-event-person.repository.ts';
import { SigningCertificate } from '../../db/fiscal/signing-certificate.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { secretBox } from '../../platform/secret-box.ts';
import { registerSigningCertificate } from '../../services/dian/certificates.ts';
import { testActivityDeps, TEST_WEBHOOK_SECRET_KEY } from '../helpers/activity-deps.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  dianSimulator,
  EVENT_PERSON,
  FAST_RECEPTION_EVENT_TIMING,
  testCertificate,
} from '../helpers/dian-simulator.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const run = promisify(execFile);
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), 'ap-dian-signing-'));
let files = 0;
let api: TestApi;

beforeAll(async () => {
  api = await startTestApi({ config: { receptionEvents: FAST_RECEPTION_EVENT_TIMING } });
});
afterAll(() => api.close());

/** A file for the CLI to read. */
function file(content: Buffer | string): string {
  const path = join(dir, `file-${++files}`);
  writeFileSync(path, content);
  return path;
}
const registerByCli = (company: Company, pkcs12: Buffer, password = 'clave') =>
  ops(
    'fiscal',
    'certificate',
    '--company',
    company.id,
    '--file',
    file(pkcs12),
    '--password-file',
    file(`${password}\n`),
  );

async function colombianCompany() {
  const made = await makeCompany(api.orm, { country: 'COL' });
  await setDianEventPerson(companyEm(api.orm, made.company.id), made.company, EVENT_PERSON);
  return made;
}
const invoice = (company: Company) => seedDocument(api.orm, company, { issueDate: new Date(Date.now() - 2 * DAY) });

async function settled(apiKey: string, document: Document) {
  let entry: { status: string; reason: string | null } | undefined;
  await expect
    .poll(
      async () => {
        const page = expectStatus(
          await api.sdk(apiKey).listDocuments({
            query: { fields: 'invoice_reception_events', fiscal_reference: document.fiscalReference! },
          }),
          200,
        );
        entry = page.items[0]!.invoice_reception_events!.find((event) => event.event_type === '030');
        return entry?.status;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toMatch(/^(accepted|rejected|failed)$/);
  return entry!;
}

describe('ops fiscal certificate', () => {
  it('registers the certificate with its key sealed, and shows subject, NIT, issuer and expiry', async () => {
    const { company } = await colombianCompany();
    const registered = await registerByCli(company, testCertificate());
    expect(registered.code).toBe(0);
    expect(registered.stdout).toEqual({
      company: company.id,
      signing_certificate: {
        subject: 'CN=Empresa de Pruebas S.A.S., serialNumber=900000001, O=Empresa de Pruebas S.A.S., C=CO',
        nit: '900000001',
        issuer: expect.stringContaining('CN=Autoridad de Certificacion de Pruebas'),
        serial_number: expect.stringMatching(/^[0-9A-F]+$/),
        not_before: expect.any(String),
        not_after: expect.any(String),
        expires_in_days: 1,
        expired: false,
        // Two days left: operators are told to register its renewal.
        expiring_soon: true,
        fingerprint_sha256: expect.any(String),
      },
    });
    const row = await companyEm(api.orm, company.id).findOneOrFail(
      SigningCertificate,
      {},
      { populate: ['sealedPrivateKey'] },
    );
    expect(row.sealedPrivateKey).toMatch(/^v1:/);
    expect(row.sealedPrivateKey).not.toContain('PRIVATE KEY');

    const testSet = await ops('fiscal', 'credentials', '--company', company.id, '--dian-test-set-id', 'a1b2-c3d4');
    expect(testSet.stdout.dian).toMatchObject({
      test_set_id: 'a1b2-c3d4',
      signing_certificate: { nit: '900000001', expiring_soon: true },
    });
  });

  it('refuses a wrong password, an expired certificate, another NIT, a Mexican company and a missing file', async () => {
    const { company } = await colombianCompany();
    const mexican = await makeCompany(api.orm, { country: 'MEX' });
    const expired = testCertificate({
      notBefore: new Date(Date.now() - 400 * DAY),
      notAfter: new Date(Date.now() - 35 * DAY),
    });
    const cases = [
      [await registerByCli(company, testCertificate(), 'otra'), 'certificate_password_wrong'],
      [await registerByCli(company, expired), 'certificate_expired'],
      [await registerByCli(company, testCertificate({ nit: '811222333' })), 'certificate_nit_mismatch'],
      [await registerByCli(mexican.company, testCertificate()), 'country_mismatch'],
      [
        await ops(
          'fiscal',
          'certificate',
          '--company',
          company.id,
          '--file',
          join(dir, 'missing.p12'),
          '--password-file',
          file('x'),
        ),
        'file_unreadable',
      ],
    ] as const;
    for (const [answer, code] of cases) {
      expect(answer.code, code).toBe(1);
      expect(answer.stderr.error, code).toEqual({ code, message: expect.any(String) });
    }
    expect(await companyEm(api.orm, company.id).count(SigningCertificate, {})).toBe(0);
  });
});

describe('signed events', () => {
  it('signs a single event and a batch, DIAN accepts them, and xmlsec1 verifies what DIAN received', async () => {
    const { company, apiKey } = await colombianCompany();
    expect((await registerByCli(company, testCertificate())).code).toBe(0);
    const [single, first, second] = await Promise.all([invoice(company), invoice(company), invoice(company)]);
    expectStatus(
      await api.sdk(apiKey).sendReceptionEvent({
        body: { document_fiscal_reference: single!.fiscalReference!, event_type: '030' },
      }),
      200,
    );
    expectStatus(
      await api.sdk(apiKey).sendReceptionEventsBatch({
        body: { documents_fiscal_reference: [first!.fiscalReference!, second!.fiscalReference!], events_type: ['030'] },
      }),
      200,
    );
    for (const document of [single!, first!, second!])
      expect(await settled(apiKey, document)).toMatchObject({ status: 'accepted', reason: null });

    const [received] = (await dianSimulator.events(single!.fiscalReference!)).received;
    expect(received).toMatchObject({ operation: 'SendEventUpdateStatus', answer: { isValid: true, statusCode: '00' } });
    const signed = file(received!.xml!);
    const verified = await run('xmlsec1', [
      '--verify',
      '--trusted-pem',
      file(inject('signingAuthority').ca),
      '--id-attr:Id',
      'http://uri.etsi.org/01903/v1.3.2#:SignedProperties',
      signed,
    ]);
    expect(`${verified.stdout}${verified.stderr}`).toContain('SignedInfo References (ok/all): 3/3');
  });

  it('records the events of a company without a certificate as rejected, saying what to register, and sends nothing', async () => {
    const { company, apiKey } = await colombianCompany();
    const document = await invoice(company);
    await api
      .sdk(apiKey)
      .sendReceptionEvent({ body: { document_fiscal_reference: document.fiscalReference!, event_type: '030' } });
    expect(await settled(apiKey, document)).toMatchObject({
      status: 'rejected',
      reason: expect.stringContaining('ops fiscal certificate'),
    });
    expect((await dianSimulator.events(document.fiscalReference!)).received).toEqual([]);
  });

  it('rejects the events of a company whose certificate has expired, with the reason, and sends nothing', async () => {
    const { company, apiKey } = await colombianCompany();
    const notAfter = new Date(Date.now() - DAY);
    // Registered while it was valid; it has expired since.
    await registerSigningCertificate(
      companyEm(api.orm, company.id),
      secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex')),
      {
        companyId: company.id,
        pkcs12: testCertificate({ notBefore: new Date(Date.now() - 30 * DAY), notAfter }),
        password: 'clave',
        now: new Date(Date.now() - 2 * DAY),
      },
    );
    const document = await invoice(company);
    await api
      .sdk(apiKey)
      .sendReceptionEvent({ body: { document_fiscal_reference: document.fiscalReference!, event_type: '030' } });
    expect(await settled(apiKey, document)).toMatchObject({
      status: 'rejected',
      reason: expect.stringMatching(/^The certificate expired on .*: register its renewal; nothing was sent to DIAN$/),
    });
    expect((await dianSimulator.events(document.fiscalReference!)).received).toEqual([]);

    // The day's housekeeping names it in the logs.
    const lines: string[] = [];
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const activities = createActivities({
      ...testActivityDeps({
        orm: api.orm,
        client: api.client,
        taskQueue: inject('taskQueue'),
        storageDir: inject('storageDir'),
        publicUrl: inject('publicUrl'),
        outside: inject('outside'),
      }),
      logger,
    });
    expect(await activities.warnExpiringCertificates()).toBeGreaterThanOrEqual(1);
    const warning = lines.map((line) => JSON.parse(line)).find((line) => line.company === company.id);
    expect(warning).toMatchObject({ nit: '900000001', daysLeft: -1, msg: expect.stringContaining('has expired') });
  });
});
