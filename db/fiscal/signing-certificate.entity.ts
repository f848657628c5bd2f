import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/**
 * The certificate a Colombian company signs its DIAN events with: the private key sealed (PKCS#8 PEM, under the
 * service's secret key), the certificate and its chain in the clear, and what operators are shown of it.
 */
export const SigningCertificate = defineEntity({
  name: 'SigningCertificate',
  tableName: 'signing_certificates',
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company).unique(),
    sealedPrivateKey: p.text().lazy(),
    certificatePem: p.text(),
    /** The authorities above it, as the PKCS#12 file carried them (PEM, one after the other). */
    chainPem: p.text(),
    subject: p.text(),
    issuer: p.text(),
    serialNumber: p.string(),
    nit: p.string(),
    notBefore: p.datetime(),
    notAfter: p.datetime().index(),
    fingerprintSha256: p.string(),
    createdAt: p.datetime().onCreate(() => new Date()),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});
export type SigningCertificate = InferEntity<typeof SigningCertificate>;
