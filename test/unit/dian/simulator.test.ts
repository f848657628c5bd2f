// The DIAN client against the DIAN simulator, which checks signatures with xmlsec1 and openssl as DIAN would: what it
// accepts, and how it refuses a tampered byte, a stale timestamp, a certificate it does not trust or of another NIT,
// an unknown software, and events DIAN's rules refuse.
import { Refusal } from '../../../platform/refusal.ts';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { sendEvent } from '../../../services/dian/client.ts';
import { operationBody, signedEnvelope } from '../../../services/dian/soap.ts';
import { startDianSimulator, SERVICE_PATH, type DianSimulator } from '../../../simulators/dian/server.ts';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPkcs12 } from '../../../services/dian/certificate.ts';
import {
  issueSigningCertificate,
  makeSigningAuthority,
  TEST_DIAN_SOFTWARE,
} from '../../harness/signing-certificates.ts';
import { identity, rendition, settingsFor, signed } from './events.ts';

const CUFE = 'c'.repeat(96);
let dian: DianSimulator;
const company = identity();

beforeAll(async () => {
  dian = await startDianSimulator({
    software: { [TEST_DIAN_SOFTWARE.id]: TEST_DIAN_SOFTWARE.pin },
    trustedCas: [inject('signingAuthority').ca],
  });
});
afterAll(() => dian.stop());
beforeEach(() => dian.reset());

/** Signs and sends one event as the product does (`edit` changes the document before it is signed). */
async function send(
  code: Parameters<typeof rendition>[0],
  options: { edit?: (xml: string) => string; signer?: typeof company; pin?: string; testSetId?: string } = {},
) {
  const event = rendition(code, CUFE);
  const signer = options.signer ?? company;
  return sendEvent(settingsFor(dian.url, options.pin), signer, {
    fileName: event.eventNumber,
    signedXml: await signed(event.xml, signer, options.edit),
    testSetId: options.testSetId ?? null,
  });
}

/**
 * An identity whose certificate's base64 is a multiple of 64 characters long. The company's name appears twice in the
 * subject, so each letter more adds two bytes: the name grows until the length lands (a new key may shift it by one).
 */
function certificateFillingItsLastPemLine(): typeof company {
  const fills = (bytes: number) => (4 * Math.ceil(bytes / 3)) % 64 === 0;
  // The names below have one space more than the company's: two bytes.
  const base = company.certificate.raw.length + 2;
  for (let extra = 0; extra < 200; extra++) {
    const expected = base + 2 * extra;
    if (!fills(expected - 1) && !fills(expected) && !fills(expected + 1)) continue;
    const candidate = identity({ name: `Comprador ${'X'.repeat(extra)} S.A.S.` });
    if (fills(candidate.certificate.raw.length)) return candidate;
  }
  throw new Error('no certificate length filled its last PEM line');
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => error,
  );

describe('what DIAN accepts', () => {
  it('registers a signed event, and answers a repeated one with rule 90 (read as already registered)', async () => {
    const first = await send('030');
    expect(first).toMatchObject({ accepted: true, alreadyRegistered: false, statusCode: '00', errors: [] });
    expect(first.registeredAt).toBeInstanceOf(Date);
    const [received] = dian.received(CUFE);
    expect(first.documentKey).toBe((received!.applicationResponse as any).ApplicationResponse.UUID.value);
    expect(await send('030')).toMatchObject({
      accepted: false,
      alreadyRegistered: true,
      errors: ['Regla: 90, Rechazo: Documento procesado anteriormente.'],
    });
    expect(dian.registered(CUFE)).toEqual(['030']);
  });

  it('takes a request whose certificate fills the last line of its PEM exactly', async () => {
    // The token's base64 is cut into PEM lines of 64: one whose length is a multiple of 64 once left an empty line,
    // which openssl refused, so that a company's every request failed for its certificate's length.
    const filling = certificateFillingItsLastPemLine();
    expect(filling.certificate.raw.toString('base64').length % 64).toBe(0);
    expect(await send('030', { signer: filling })).toMatchObject({ accepted: true, statusCode: '00', errors: [] });
  });

  it('takes an event through a test set during habilitación, and answers it through GetStatusZip', async () => {
    expect(await send('030', { testSetId: 'f2c1a9d0-test-set' })).toMatchObject({ accepted: true, statusCode: '00' });
    expect(dian.received(CUFE).map((event) => event.operation)).toEqual(['SendTestSetAsync']);
  });
});

describe('how DIAN refuses', () => {
  it('refuses a document changed after it was signed (ZE02)', async () => {
    const event = rendition('030', CUFE);
    const signedXml = (await signed(event.xml, company)).replace('<cbc:ID>FE-1</cbc:ID>', '<cbc:ID>FE-2</cbc:ID>');
    const answer = await sendEvent(settingsFor(dian.url), company, {
      fileName: event.eventNumber,
      signedXml,
      testSetId: null,
    });
    expect(answer).toMatchObject({ accepted: false, statusCode: '99' });
    expect(answer.errors[0]).toMatch(/^Regla: ZE02, Rechazo: Valor de la firma inválido/);
    expect(dian.registered(CUFE)).toEqual([]);
  });

  it('refuses a certificate of another NIT than the sender’s (ZD06)', async () => {
    const answer = await send('030', { signer: identity({ nit: '811222333' }) });
    expect(answer.errors).toEqual([expect.stringMatching(/^Regla: ZD06, .*\(900000001\)/)]);
  });

  it('refuses, as a request, a certificate from an authority it does not trust', async () => {
    const stranger = makeSigningAuthority(mkdtempSync(join(tmpdir(), 'ap-stranger-')));
    const signer = readPkcs12(
      issueSigningCertificate(stranger, { nit: '900000001', name: 'Comprador S.A.S.', password: 'c' }),
      'c',
    );
    const refused = await failure(send('030', { signer }));
    expect(refused).toBeInstanceOf(Refusal);
    expect(refused).toMatchObject({ code: 'DianRequestRefused', retryable: false });
    expect((refused as Error).message).toContain('The certificate is not trusted');
    expect(dian.received(CUFE)).toEqual([]);
  });

  it('refuses a request whose timestamp has expired, or whose wsa:To was changed after signing', async () => {
    const body = operationBody('SendEventUpdateStatus', [['contentFile', 'UEsFBgAAAAAAAAAAAAAAAAAAAAAAAA==']]);
    const post = (envelope: string) =>
      fetch(`${dian.url}${SERVICE_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/soap+xml; charset=utf-8' },
        body: envelope,
      });
    const stale = signedEnvelope({
      operation: 'SendEventUpdateStatus',
      to: `${dian.url}${SERVICE_PATH}`,
      body,
      identity: company,
      now: new Date(Date.now() - 10 * 60_000),
    });
    const expired = await post(stale);
    expect(expired.status).toBe(500);
    expect(await expired.text()).toMatch(/InvalidSecurity.*The security timestamp expired/s);
    const fresh = signedEnvelope({
      operation: 'SendEventUpdateStatus',
      to: `${dian.url}${SERVICE_PATH}`,
      body,
      identity: company,
      now: new Date(),
    });
    const redirected = await post(fresh.replace(`${dian.url}${SERVICE_PATH}`, `${dian.url}/other.svc`));
    expect(await redirected.text()).toContain('InvalidSecurity');
    const tampered = await post(fresh.replace('UEsFBg', 'UEsFBx'));
    // The body is not what the signature covers: DIAN reads it, and finds no event in it.
    expect(await tampered.text()).toContain('ZB02');
  });

  it('refuses an unknown software, and an event whose CUDE was computed with another PIN', async () => {
    const unknown = await send('030', {
      edit: (xml) => xml.replaceAll(TEST_DIAN_SOFTWARE.id, 'software-sin-registro'),
    });
    expect(unknown.errors).toEqual([expect.stringMatching(/^Regla: AAB07, .*software-sin-registro/)]);
    const otherPin = rendition('030', CUFE, {
      software: { id: TEST_DIAN_SOFTWARE.id, pin: '00000', providerNit: '900000001' },
    });
    const answer = await sendEvent(settingsFor(dian.url), company, {
      fileName: otherPin.eventNumber,
      signedXml: await signed(otherPin.xml, company),
      testSetId: null,
    });
    expect(answer.errors).toEqual([
      expect.stringMatching(/^Regla: AAB08/),
      expect.stringMatching(/^Regla: AAH05, Rechazo: El CUDE no corresponde/),
    ]);
  });

  it('rejects events out of order or contradicting earlier ones, like DIAN', async () => {
    expect((await send('032')).errors).toEqual([
      expect.stringMatching(/^Regla: DC24b, Rechazo: El evento 032 requiere el evento 030/),
    ]);
    dian.register(CUFE, ['030', '032', '033']);
    expect((await send('031')).errors).toEqual([
      expect.stringMatching(/^Regla: LGC02.*031 no es coherente con el evento 033/),
    ]);
  });

  it('rejects a 030 or 032 whose person block is missing or incomplete, and takes a 033 without one', async () => {
    const cases = [
      {
        code: '030',
        edit: (xml: string) => xml.replace(/<cac:IssuerParty>.*<\/cac:IssuerParty>/, ''),
        missing: 'cbc:ID, cbc:FirstName, cbc:FamilyName, cbc:JobTitle, cbc:OrganizationDepartment',
      },
      { code: '030', edit: (xml: string) => xml.replace('schemeName="13"', ''), missing: 'cbc:ID/@schemeName' },
      {
        code: '032',
        edit: (xml: string) => xml.replace(/<cbc:OrganizationDepartment>[^<]*</, '<cbc:OrganizationDepartment> <'),
        missing: 'cbc:OrganizationDepartment',
      },
    ] as const;
    for (const { code, edit, missing } of cases) {
      if (code === '032') dian.register(CUFE, ['030']);
      expect((await send(code, { edit })).errors, missing).toEqual([
        `Regla: Person, Rechazo: El evento ${code} requiere la persona que recibe (cac:IssuerParty/cac:Person) completa; falta: ${missing}`,
      ]);
    }
    dian.register(CUFE, ['032']);
    expect((await send('033')).accepted).toBe(true);
  });

  it('rejects or fails on command, per CUFE and for a number of requests', async () => {
    dian.behave(CUFE, { mode: 'reject', times: 1, errors: ['Regla: X1, Rechazo: Motivo'] });
    expect(await send('030')).toMatchObject({
      accepted: false,
      statusCode: '99',
      errors: ['Regla: X1, Rechazo: Motivo'],
    });
    dian.behave(CUFE, { mode: 'fail', times: 1 });
    const transient = await failure(send('030'));
    expect(transient).toMatchObject({ code: 'DianUnavailable', retryable: true });
    expect((transient as Error).message).toContain('HTTP 503');
    expect((await send('030')).accepted).toBe(true);
  });

  it('treats an address that is not DIAN’s service as a refusal, not as a transient failure', async () => {
    const event = rendition('030', CUFE);
    const refused = await failure(
      sendEvent({ ...settingsFor(dian.url), serviceUrl: `${dian.url}/nowhere` }, company, {
        fileName: event.eventNumber,
        signedXml: await signed(event.xml, company),
        testSetId: null,
      }),
    );
    expect(refused).toMatchObject({ code: 'DianRequestRefused', retryable: false });
  });
});
