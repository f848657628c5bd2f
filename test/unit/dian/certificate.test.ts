import { describe, expect, inject, it } from 'vitest';
import {
  checkSigningCertificate,
  describeCertificate,
  MAX_PKCS12_BYTES,
  readPkcs12,
} from '../../../services/dian/certificate.ts';
import { issueSigningCertificate } from '../../harness/signing-certificates.ts';

const issue = (options: { nit?: string; notBefore?: Date; notAfter?: Date } = {}) =>
  issueSigningCertificate(inject('signingAuthority'), {
    nit: options.nit ?? '900111222',
    name: 'Ferreteria La Falla SAS',
    password: 'correcta',
    ...options,
  });
const refusal = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return error as { code: string; message: string };
  }
  return null;
};

describe('reading a PKCS#12 file', () => {
  it('opens it with its password: the key, the certificate that matches it, and its authority', () => {
    const identity = readPkcs12(issue(), 'correcta');
    expect(identity.privateKey.asymmetricKeyType).toBe('rsa');
    expect(identity.certificate.checkPrivateKey(identity.privateKey)).toBe(true);
    expect(identity.chain.map((certificate) => certificate.subject)).toEqual([
      expect.stringContaining('CN=Autoridad de Certificacion de Pruebas'),
    ]);
    expect(describeCertificate(identity.certificate)).toMatchObject({
      subject: 'CN=Ferreteria La Falla SAS, serialNumber=900111222, O=Ferreteria La Falla SAS, C=CO',
      issuer: expect.stringContaining('CN=Autoridad de Certificacion de Pruebas'),
      nit: '900111222',
      notAfter: expect.any(Date),
      fingerprintSha256: expect.stringMatching(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/),
    });
  });

  it('refuses a wrong password, something that is not a PKCS#12 file, and a file too large to be one', () => {
    expect(refusal(() => readPkcs12(issue(), 'incorrecta'))).toMatchObject({ code: 'certificate_password_wrong' });
    expect(refusal(() => readPkcs12(Buffer.from('-----BEGIN CERTIFICATE-----'), 'x'))).toMatchObject({
      code: 'certificate_unreadable',
    });
    expect(refusal(() => readPkcs12(Buffer.alloc(MAX_PKCS12_BYTES + 1), 'x'))).toMatchObject({
      code: 'certificate_too_large',
    });
  });
});

describe('whether a certificate can sign for the company', () => {
  const now = new Date();
  const description = (options: Parameters<typeof issue>[0]) =>
    describeCertificate(readPkcs12(issue(options), 'correcta').certificate);

  it('takes a valid certificate of the company’s NIT', () => {
    expect(refusal(() => checkSigningCertificate(description({}), '900111222', now))).toBeNull();
  });

  it('refuses one that has expired, one not valid yet, and one of another NIT, saying which', () => {
    const expired = description({
      notBefore: new Date('2025-01-01T00:00:00Z'),
      notAfter: new Date('2025-12-31T00:00:00Z'),
    });
    expect(refusal(() => checkSigningCertificate(expired, '900111222', now))).toEqual(
      expect.objectContaining({ code: 'certificate_expired', message: expect.stringContaining('2025-12-31') }),
    );
    const later = description({
      notBefore: new Date(Date.now() + 86_400_000),
      notAfter: new Date(Date.now() + 9 * 86_400_000),
    });
    expect(refusal(() => checkSigningCertificate(later, '900111222', now))).toMatchObject({
      code: 'certificate_not_yet_valid',
    });
    expect(refusal(() => checkSigningCertificate(description({ nit: '811222333' }), '900111222', now))).toEqual(
      expect.objectContaining({ code: 'certificate_nit_mismatch', message: expect.stringContaining('811222333') }),
    );
  });
});
