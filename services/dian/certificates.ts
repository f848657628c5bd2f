// Companies' signing certificates: registered by operators, kept with the private key sealed, opened by the worker
// to sign an event, and watched for expiry.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { Company } from '../../db/companies/company.entity.ts';
import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import { SigningCertificate } from '../../db/fiscal/signing-certificate.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { Refusal } from '../../platform/refusal.ts';
import {
  checkSigningCertificate,
  describeCertificate,
  readPkcs12,
  type CertificateDescription,
  type SigningIdentity,
} from './certificate.ts';

/** A certificate this close to its end is flagged to operators (CLI and logs), so that its renewal is registered in time. */
export const EXPIRY_WARNING_DAYS = 30;
const DAY_MS = 86_400_000;

export class CompanyNotSigning extends Refusal<'company_not_found' | 'country_mismatch' | 'company_nit_missing'> {}

/** The NIT the company's events are sent under: its DIAN NIT, else its tax id, without check digit. */
export function companyNit(company: Pick<Company, 'taxId'>, credential: Pick<FiscalCredential, 'dianNit'> | null) {
  const written = credential?.dianNit ?? company.taxId;
  return written ? written.replace(/[.\s]/g, '').replace(/-\d$/, '') : null;
}

/** Whole days left before `notAfter`; negative (days since) once expired. */
export const daysLeft = (notAfter: Date, now: Date) => Math.trunc((notAfter.getTime() - now.getTime()) / DAY_MS) || 0;

/** What operators see of a registered certificate. */
export function presentCertificate(certificate: CertificateDescription, now: Date) {
  const left = daysLeft(certificate.notAfter, now);
  return {
    subject: certificate.subject,
    nit: certificate.nit,
    issuer: certificate.issuer,
    serial_number: certificate.serialNumber,
    not_before: certificate.notBefore.toISOString(),
    not_after: certificate.notAfter.toISOString(),
    expires_in_days: left,
    expired: certificate.notAfter <= now,
    expiring_soon: left < EXPIRY_WARNING_DAYS,
    fingerprint_sha256: certificate.fingerprintSha256,
  };
}

/**
 * Registers (or replaces) a Colombian company's signing certificate from its PKCS#12 file: refused when the password
 * does not open it, when it cannot sign today, or when it names another NIT. The key is stored sealed; the password
 * is not stored at all.
 */
export async function registerSigningCertificate(
  em: EntityManager,
  secrets: SecretBox,
  input: { companyId: string; pkcs12: Buffer; password: string; now: Date },
): Promise<CertificateDescription> {
  const company = await em.findOne(Company, { id: input.companyId });
  if (!company) throw new CompanyNotSigning('company_not_found', `No company with reference ${input.companyId}`);
  if (company.country !== 'COL')
    throw new CompanyNotSigning('country_mismatch', 'Signing certificates are for Colombian companies (DIAN events)');
  const nit = companyNit(company, await em.findOne(FiscalCredential, { company }));
  if (!nit)
    throw new CompanyNotSigning(
      'company_nit_missing',
      'The company has no NIT: set its tax id or its DIAN NIT (ops fiscal credentials --dian-nit) first',
    );
  const identity = readPkcs12(input.pkcs12, input.password);
  const description = describeCertificate(identity.certificate);
  checkSigningCertificate(description, nit, input.now);
  const fields = {
    sealedPrivateKey: secrets.seal(identity.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string),
    certificatePem: identity.certificate.toString(),
    chainPem: identity.chain.map((certificate) => certificate.toString()).join(''),
    subject: description.subject,
    issuer: description.issuer,
    serialNumber: description.serialNumber,
    nit: description.nit!,
    notBefore: description.notBefore,
    notAfter: description.notAfter,
    fingerprintSha256: description.fingerprintSha256,
  };
  const existing = await em.findOne(SigningCertificate, { company });
  if (existing) em.assign(existing, fields);
  else em.create(SigningCertificate, { company, ...fields });
  await em.flush();
  return description;
}

/** The company's registered certificate, described; null when none is. */
export async function registeredCertificate(em: EntityManager): Promise<CertificateDescription | null> {
  const row = await em.findOne(SigningCertificate, {});
  return row ? describeCertificate(new X509Certificate(row.certificatePem)) : null;
}

/** The company's key and certificate, unsealed to sign; null when it registered none. */
export async function signingIdentityOf(em: EntityManager, secrets: SecretBox): Promise<SigningIdentity | null> {
  const row = await em.findOne(SigningCertificate, {}, { populate: ['sealedPrivateKey'] });
  if (!row) return null;
  const chain = row.chainPem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----\n?/g) ?? [];
  return {
    privateKey: createPrivateKey(secrets.open(row.sealedPrivateKey)),
    certificate: new X509Certificate(row.certificatePem),
    chain: chain.map((pem) => new X509Certificate(pem)),
  };
}

/** Certificates of every company that end within the warning window (or have ended), soonest first. */
export async function expiringCertificates(systemEm: EntityManager, now: Date) {
  const rows = await systemEm.find(
    SigningCertificate,
    { notAfter: { $lt: new Date(now.getTime() + EXPIRY_WARNING_DAYS * DAY_MS) } },
    { orderBy: { notAfter: 'asc' }, fields: ['company', 'subject', 'nit', 'notAfter'] },
  );
  return rows.map((row) => ({
    companyId: row.company.id,
    subject: row.subject,
    nit: row.nit,
    notAfter: row.notAfter,
    expired: row.notAfter <= now,
    daysLeft: daysLeft(row.notAfter, now),
  }));
}
