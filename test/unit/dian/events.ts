// Signed RADIAN events for the DIAN unit tests: rendered and signed by the product's code, with a certificate from the
// suite's test authority.
import { inject } from 'vitest';
import { readPkcs12, type SigningIdentity } from '../../../services/dian/certificate.ts';
import { dianSettingsFromEnv, type DianSettings } from '../../../services/dian/settings.ts';
import { signUblDocument } from '../../../services/dian/xades.ts';
import {
  applicationResponse,
  DIAN_NIT,
  type EventRendition,
} from '../../../services/reception-events/application-response.ts';
import type { RadianPerson } from '../../../fiscal/radian-person.ts';
import { issueSigningCertificate, TEST_DIAN_SOFTWARE } from '../../harness/signing-certificates.ts';

export const SENDER_NIT = '900000001';

/** The person of DIAN's official 030 example. */
export const PERSON: RadianPerson = {
  idType: '13',
  idNumber: '2589846132',
  firstName: 'Solo',
  familyName: 'Pruebas',
  jobTitle: 'Revisor Fiscal',
  department: 'Jurídica',
};

/** A company's signing identity from the suite's authority (or the one given). */
export function identity(
  options: { nit?: string; name?: string; notBefore?: Date; notAfter?: Date } = {},
): SigningIdentity {
  const pkcs12 = issueSigningCertificate(inject('signingAuthority'), {
    nit: options.nit ?? SENDER_NIT,
    name: 'Comprador S.A.S.',
    password: 'clave',
    ...options,
  });
  return readPkcs12(pkcs12, 'clave');
}

/** The settings of a product that sends to `url` as the suite's software. */
export const settingsFor = (url: string, pin = TEST_DIAN_SOFTWARE.pin): DianSettings =>
  dianSettingsFromEnv({ DIAN_URL: url, DIAN_SOFTWARE_ID: TEST_DIAN_SOFTWARE.id, DIAN_SOFTWARE_PIN: pin });

/** The rendition of an event about `cufe`, as the product builds it. */
export function rendition(
  eventCode: EventRendition['eventCode'],
  cufe: string,
  overrides: Partial<EventRendition> = {},
) {
  return applicationResponse({
    eventCode,
    eventNumber: `${eventCode}-1`,
    signedAt: new Date(),
    profileExecutionId: '2',
    sender: { name: 'Comprador S.A.S.', nit: SENDER_NIT },
    receiver: eventCode === '034' ? { name: 'DIAN', nit: DIAN_NIT } : { name: 'Proveedor S.A.S.', nit: '800000002' },
    invoice: { number: 'FE-1', cufe },
    claim: eventCode === '031' ? { code: '01', description: 'Valores errados' } : null,
    person: eventCode === '030' || eventCode === '032' ? PERSON : null,
    software: { id: TEST_DIAN_SOFTWARE.id, pin: TEST_DIAN_SOFTWARE.pin, providerNit: SENDER_NIT },
    ...overrides,
  });
}

/** Signs an event's XML (changed first by `edit`, to make what DIAN must refuse) as the product signs it. */
export async function signed(xml: string, signer: SigningIdentity, edit: (xml: string) => string = (same) => same) {
  return signUblDocument(edit(xml), signer, {
    signatureId: 'xmldsig-test',
    signingTime: new Date(),
    role: 'third party',
  });
}
