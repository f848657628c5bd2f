// A company's signing certificate: read from the PKCS#12 file its certification authority issued (node-forge opens
// the container; node's crypto holds the key and reads the certificate), and described for operators.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { Refusal } from '../../platform/refusal.ts';

/** A .p12 from a Colombian authority is a few kilobytes; anything far larger is not one. */
export const MAX_PKCS12_BYTES = 64 * 1024;

export type CertificateRefusal =
  | 'certificate_unreadable'
  | 'certificate_too_large'
  | 'certificate_password_wrong'
  | 'certificate_without_key'
  | 'certificate_expired'
  | 'certificate_not_yet_valid'
  | 'certificate_nit_mismatch';

export class CertificateRefused extends Refusal<CertificateRefusal> {}

/** The key and certificate that sign a company's events; the key never leaves the worker unsealed. */
export interface SigningIdentity {
  privateKey: KeyObject;
  certificate: X509Certificate;
  /** The authorities above it, as the file carried them. */
  chain: X509Certificate[];
}

export interface CertificateDescription {
  subject: string;
  issuer: string;
  serialNumber: string;
  /** The NIT the certificate names (subject serialNumber, or a "NIT …" in the subject), without check digit. */
  nit: string | null;
  notBefore: Date;
  notAfter: Date;
  fingerprintSha256: string;
}

const pem = (certificate: forge.pki.Certificate) => forge.pki.certificateToPem(certificate);
const KEY_BAGS = [forge.pki.oids.pkcs8ShroudedKeyBag!, forge.pki.oids.keyBag!];
const CERT_BAG = forge.pki.oids.certBag!;

/** Opens a PKCS#12 file with its password: the private key and the certificate that matches it, with its chain. */
export function readPkcs12(bytes: Buffer, password: string): SigningIdentity {
  if (bytes.length > MAX_PKCS12_BYTES)
    throw new CertificateRefused('certificate_too_large', `A PKCS#12 file is at most ${MAX_PKCS12_BYTES / 1024} KB`);
  let container: forge.pkcs12.Pkcs12Pfx;
  try {
    container = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(bytes.toString('binary')), false, password);
  } catch (error) {
    const message = (error as Error).message;
    if (/mac could not be verified|invalid password/i.test(message))
      throw new CertificateRefused('certificate_password_wrong', 'The password does not open this PKCS#12 file');
    throw new CertificateRefused('certificate_unreadable', `Not a PKCS#12 file this service can read: ${message}`);
  }
  const keys = KEY_BAGS.flatMap((bagType) => container.getBags({ bagType })[bagType] ?? []).flatMap((bag) =>
    bag.key ? [bag.key as forge.pki.rsa.PrivateKey] : [],
  );
  const certificates = (container.getBags({ bagType: CERT_BAG })[CERT_BAG] ?? []).flatMap((bag) =>
    bag.cert ? [bag.cert] : [],
  );
  const [key] = keys;
  if (!key)
    throw new CertificateRefused('certificate_without_key', 'The file holds no private key (an RSA key is needed)');
  const matches = (certificate: forge.pki.Certificate) => {
    const publicKey = certificate.publicKey as forge.pki.rsa.PublicKey;
    return publicKey.n?.equals(key.n) && publicKey.e?.equals(key.e);
  };
  const leaf = certificates.find(matches);
  if (!leaf)
    throw new CertificateRefused('certificate_without_key', 'No certificate in the file matches its private key');
  return {
    privateKey: createPrivateKey(forge.pki.privateKeyToPem(key)),
    certificate: new X509Certificate(pem(leaf)),
    chain: certificates
      .filter((certificate) => certificate !== leaf)
      .map((certificate) => new X509Certificate(pem(certificate))),
  };
}

/** `KEY=value` lines of a distinguished name, as node writes them. */
const attributes = (name: string) =>
  name.split('\n').flatMap((line) => {
    const at = line.indexOf('=');
    return at > 0 ? [{ key: line.slice(0, at), value: line.slice(at + 1) }] : [];
  });

/** A NIT without dots, spaces or the check digit after a dash. */
const bare = (value: string) => value.replace(/[.\s]/g, '').replace(/-\d$/, '');

/**
 * The NIT a Colombian signing certificate names: its subject serialNumber (how Colombian authorities issue company
 * certificates), else a "NIT 900.123.456-7" written anywhere in the subject.
 */
export function certificateNit(certificate: X509Certificate): string | null {
  const subject = attributes(certificate.subject);
  const serial = subject.find((attribute) => attribute.key === 'serialNumber')?.value;
  if (serial && /^\s*(?:NIT\s*)?[\d.]{6,15}(?:-\d)?\s*$/i.test(serial)) return bare(serial.replace(/NIT/i, ''));
  for (const { value } of subject) {
    const written = /NIT[\s:]*([\d.]{6,15}(?:-\d)?)/i.exec(value);
    if (written) return bare(written[1]!);
  }
  return null;
}

export function describeCertificate(certificate: X509Certificate): CertificateDescription {
  return {
    subject: attributes(certificate.subject)
      .map(({ key, value }) => `${key}=${value}`)
      .join(', '),
    issuer: attributes(certificate.issuer)
      .map(({ key, value }) => `${key}=${value}`)
      .join(', '),
    serialNumber: certificate.serialNumber,
    nit: certificateNit(certificate),
    notBefore: new Date(certificate.validFrom),
    notAfter: new Date(certificate.validTo),
    fingerprintSha256: certificate.fingerprint256,
  };
}

/** Refuses a certificate that cannot sign today, or that names another company's NIT. */
export function checkSigningCertificate(description: CertificateDescription, companyNit: string, now: Date): void {
  if (description.notAfter <= now)
    throw new CertificateRefused(
      'certificate_expired',
      `The certificate expired on ${description.notAfter.toISOString()}: register its renewal`,
    );
  if (description.notBefore > now)
    throw new CertificateRefused(
      'certificate_not_yet_valid',
      `The certificate is valid only from ${description.notBefore.toISOString()}`,
    );
  if (description.nit !== companyNit)
    throw new CertificateRefused(
      'certificate_nit_mismatch',
      `The certificate names NIT ${description.nit ?? '(none)'}, not the company's ${companyNit}`,
    );
}
