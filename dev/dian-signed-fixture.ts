// `node dev/dian-signed-fixture.ts`: writes test/fixtures/dian/signed-application-response-030.xml, a 030 event
// signed by the product's code with a certificate (valid to 2036) from a fresh test authority, and that authority's
// certificate beside it, for the unit test that verifies it with xmlsec1. Run it again when the signature changes.
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPkcs12 } from '../services/dian/certificate.ts';
import { signUblDocument } from '../services/dian/xades.ts';
import { applicationResponse } from '../services/reception-events/application-response.ts';
import {
  issueSigningCertificate,
  makeSigningAuthority,
  TEST_DIAN_SOFTWARE,
} from '../test/harness/signing-certificates.ts';

const FIXTURES = new URL('../test/fixtures/dian/', import.meta.url).pathname;
const NIT = '900111222';

const dir = mkdtempSync(join(tmpdir(), 'ap-fixture-authority-'));
try {
  const authority = makeSigningAuthority(dir);
  const pkcs12 = issueSigningCertificate(authority, {
    nit: NIT,
    name: 'Ferreteria La Falla SAS',
    password: 'clave',
    notBefore: new Date('2026-11-01T00:00:00Z'),
    notAfter: new Date('2036-11-01T00:00:00Z'),
  });
  const signedAt = new Date('2026-11-25T15:30:00Z');
  const event = applicationResponse({
    eventCode: '030',
    eventNumber: '030-0196f1c902aa7c558d105b7e3c9a4f60-1',
    signedAt,
    profileExecutionId: '2',
    sender: { name: 'Ferretería La Falla S.A.S.', nit: NIT },
    receiver: { name: 'Distribuidora Andina S.A.S.', nit: '800123456' },
    invoice: {
      number: 'SETP990000008',
      cufe: `e633d092${'a1b2c3d4e5f60718293a4b5c6d7e8f90'.repeat(2)}a1b2c3d4e5f60718293a4b5c`,
    },
    claim: null,
    person: {
      idType: '13',
      idNumber: '52123456',
      firstName: 'Ana',
      familyName: 'Gómez',
      jobTitle: 'Jefe de compras',
      department: 'Compras',
    },
    software: { ...TEST_DIAN_SOFTWARE, providerNit: NIT },
  });
  const signed = await signUblDocument(event.xml, readPkcs12(pkcs12, 'clave'), {
    signatureId: 'xmldsig-fixture-030',
    signingTime: signedAt,
    role: 'third party',
  });
  writeFileSync(join(FIXTURES, 'signed-application-response-030.xml'), signed);
  copyFileSync(join(dir, 'ca.pem'), join(FIXTURES, 'signing-test-ca.pem'));
  console.log(`Wrote the signed 030 (CUDE ${event.cude}) and its authority to ${FIXTURES}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
