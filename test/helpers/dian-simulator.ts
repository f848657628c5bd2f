import { inject } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { secretBox } from '../../platform/secret-box.ts';
import { registerSigningCertificate } from '../../services/dian/certificates.ts';
import { issueSigningCertificate } from '../harness/signing-certificates.ts';
import { TEST_WEBHOOK_SECRET_KEY } from './activity-deps.ts';
import type { RadianPerson } from '../../fiscal/radian-person.ts';
import type { DianBehaviour, ReceivedEvent } from '../../simulators/dian/server.ts';
import type { ReceptionEventTiming } from '../../db/reception-events/reception-event-batch.entity.ts';

/** Reception-event pacing for tests: short waits and retries, so that failing after every retry fits in a test. */
export const FAST_RECEPTION_EVENT_TIMING: ReceptionEventTiming = {
  wait: { initialMs: 1_000, maxMs: 5_000, giveUpMs: 300_000 },
  submit: { initialMs: 100, maxMs: 400, attempts: 3, timeoutMs: 30_000 },
};

/** Who receives for a test company in 030 and 032 (`setDianEventPerson`): without it those events are not sent. */
export const EVENT_PERSON: RadianPerson = {
  idType: '13',
  idNumber: '52123456',
  firstName: 'Ana María',
  familyName: 'Pérez Gómez',
  jobTitle: 'Jefe de compras',
  department: 'Compras',
};

/** The suite's DIAN simulator, steered over its control API per CUFE (every test file shares one instance). */
export const dianSimulator = {
  async behave(cufe: string, behaviour: DianBehaviour): Promise<void> {
    await control('POST', '/_control/behave', { cufe, ...behaviour });
  },
  /** Events DIAN already holds for a CUFE, as if registered earlier. */
  async register(cufe: string, eventTypes: string[]): Promise<void> {
    await control('POST', '/_control/register', { cufe, events_type: eventTypes });
  },
  async events(cufe: string): Promise<{ received: ReceivedEvent[]; registered: string[] }> {
    return (await control('GET', `/_control/events/${cufe}`)) as { received: ReceivedEvent[]; registered: string[] };
  },
};

async function control(method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${inject('outside').dianUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json()) as unknown;
  if (!response.ok)
    throw new Error(`DIAN simulator ${method} ${path}: HTTP ${response.status} ${JSON.stringify(parsed)}`);
  return parsed;
}

/** The NIT of every test company (`makeCompany`'s tax id). */
export const TEST_COMPANY_NIT = '900000001';

/** A PKCS#12 file for a test company from the authority DIAN's simulator trusts; valid for two days unless told. */
export const testCertificate = (
  options: { nit?: string; password?: string; notBefore?: Date; notAfter?: Date } = {},
): Buffer =>
  issueSigningCertificate(inject('signingAuthority'), {
    nit: options.nit ?? TEST_COMPANY_NIT,
    name: 'Empresa de Pruebas S.A.S.',
    password: options.password ?? 'clave',
    ...(options.notBefore ? { notBefore: options.notBefore } : {}),
    ...(options.notAfter ? { notAfter: options.notAfter } : {}),
  });

/** Registers a signing certificate for the company, as `ops fiscal certificate` does. */
export async function registerTestCertificate(orm: Orm, company: Company): Promise<void> {
  await registerSigningCertificate(companyEm(orm, company.id), secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex')), {
    companyId: company.id,
    pkcs12: testCertificate(),
    password: 'clave',
    now: new Date(),
  });
}
