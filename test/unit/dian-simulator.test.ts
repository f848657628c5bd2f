import { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  applicationResponse,
  DIAN_NIT,
  type EventRendition,
} from '../../services/reception-events/application-response.ts';
import { sendEventUpdateStatus } from '../../services/reception-events/dian-client.ts';
import type { RadianPerson } from '../../fiscal/radian-person.ts';
import { startDianSimulator, type DianSimulator } from '../../simulators/dian/server.ts';

const CUFE = 'd'.repeat(96);
let dian: DianSimulator;

beforeAll(async () => {
  dian = await startDianSimulator();
});
afterAll(() => dian.stop());
beforeEach(() => dian.reset());

/** The person of DIAN's official 030 example. */
const PERSON: RadianPerson = {
  idType: '13',
  idNumber: '2589846132',
  firstName: 'Solo',
  familyName: 'Pruebas',
  jobTitle: 'Revisor Fiscal',
  department: 'Jurídica',
};

const event = (eventCode: EventRendition['eventCode'], overrides: Partial<EventRendition> = {}) =>
  applicationResponse({
    eventCode,
    eventNumber: `${eventCode}-1`,
    signedAt: new Date('2026-11-20T15:30:00Z'),
    profileExecutionId: '2',
    sender: { name: 'Comprador S.A.S.', nit: '900000001' },
    receiver: eventCode === '034' ? { name: 'DIAN', nit: DIAN_NIT } : { name: 'Proveedor S.A.S.', nit: '800000002' },
    invoice: { number: 'FE-1', cufe: CUFE },
    claim: eventCode === '031' ? { code: '01', description: 'Valores errados' } : null,
    person: eventCode === '030' || eventCode === '032' ? PERSON : null,
    ...overrides,
  });

describe('the ApplicationResponse rendition', () => {
  it('writes the header, the Bogotá time of signature and the claim concept as DIAN examples do', () => {
    const claim = event('031').ApplicationResponse;
    expect(claim).toMatchObject({
      UBLVersionID: 'UBL 2.1',
      ID: '031-1',
      IssueDate: '2026-11-20',
      IssueTime: '10:30:00-05:00',
      Note: ['Valores errados'],
    });
    expect(claim.DocumentResponse.Response).toEqual({
      ResponseCode: { value: '031', listID: '01', name: 'Documento con inconsistencias' },
      Description: 'Reclamo de la Factura Electrónica de Venta',
    });
  });

  it('names the person in 030 and 032 as DIAN’s 030 example does, and nobody in the other events', () => {
    const person = {
      Person: {
        ID: { schemeID: '4', schemeName: '13', value: '2589846132' },
        FirstName: 'Solo',
        FamilyName: 'Pruebas',
        JobTitle: 'Revisor Fiscal',
        OrganizationDepartment: 'Jurídica',
      },
    };
    expect(event('030').ApplicationResponse.DocumentResponse.IssuerParty).toEqual(person);
    expect(event('032').ApplicationResponse.DocumentResponse.IssuerParty).toEqual(person);
    const passport = event('032', { person: { ...PERSON, idType: '41', idNumber: 'AB123456' } }).ApplicationResponse
      .DocumentResponse.IssuerParty;
    expect(passport?.Person.ID).toEqual({ schemeName: '41', value: 'AB123456' });
    for (const code of ['031', '033', '034'] as const) {
      expect(event(code, { person: PERSON }).ApplicationResponse.DocumentResponse, code).not.toHaveProperty(
        'IssuerParty',
      );
    }
  });

  it('refuses to build a 030 or 032 without its person', () => {
    expect(() => event('030', { person: null })).toThrow('Event 030 needs the person who receives for the buyer');
    expect(() => event('032', { person: null })).toThrow('Event 032 needs the person who receives for the buyer');
  });
});

describe('DIAN simulator and adapter', () => {
  it('registers a valid event, answers a repeated one with rule 90 (read as already registered)', async () => {
    const first = await sendEventUpdateStatus(dian.url, event('030'));
    expect(first).toMatchObject({ accepted: true, alreadyRegistered: false, statusCode: '00', errors: [] });
    expect(first.registeredAt).toBeInstanceOf(Date);
    const again = await sendEventUpdateStatus(dian.url, event('030'));
    expect(again).toMatchObject({
      accepted: false,
      alreadyRegistered: true,
      errors: ['Regla: 90, Rechazo: Documento procesado anteriormente.'],
    });
    expect(dian.registered(CUFE)).toEqual(['030']);
  });

  it('rejects events out of order or contradicting earlier ones, like DIAN', async () => {
    expect((await sendEventUpdateStatus(dian.url, event('032'))).errors).toEqual([
      expect.stringMatching(/^Regla: DC24b, Rechazo: El evento 032 requiere el evento 030/),
    ]);
    dian.register(CUFE, ['030', '032', '033']);
    expect((await sendEventUpdateStatus(dian.url, event('031'))).errors).toEqual([
      expect.stringMatching(/^Regla: LGC02.*031 no es coherente con el evento 033/),
    ]);
    expect(
      (await sendEventUpdateStatus(dian.url, event('034', { receiver: { name: 'Proveedor', nit: '800000002' } })))
        .errors,
    ).toEqual(expect.arrayContaining([expect.stringContaining('debe ser la DIAN')]));
  });

  it('rejects a 030 or 032 whose person block is missing or incomplete, like DIAN, and takes a 033 without one', async () => {
    const withPerson = (
      code: '030' | '032',
      change: (person: Record<string, any> | undefined, response: Record<string, any>) => void,
    ) => {
      const rendition = structuredClone(event(code));
      const response = rendition.ApplicationResponse.DocumentResponse as Record<string, any>;
      change(response.IssuerParty?.Person, response);
      return rendition;
    };
    const cases = [
      {
        code: '030',
        change: (_: unknown, response: Record<string, any>) => delete response.IssuerParty,
        missing: 'cbc:ID, cbc:FirstName, cbc:FamilyName, cbc:JobTitle, cbc:OrganizationDepartment',
      },
      {
        code: '030',
        change: (person: Record<string, any> | undefined) => delete person!.ID.schemeName,
        missing: 'cbc:ID/@schemeName',
      },
      {
        code: '032',
        change: (person: Record<string, any> | undefined) => (person!.OrganizationDepartment = ' '),
        missing: 'cbc:OrganizationDepartment',
      },
      {
        code: '032',
        change: (person: Record<string, any> | undefined) => delete person!.JobTitle,
        missing: 'cbc:JobTitle',
      },
    ] as const;
    for (const { code, change, missing } of cases) {
      const answer = await sendEventUpdateStatus(dian.url, withPerson(code, change));
      expect(answer, missing).toMatchObject({
        accepted: false,
        statusCode: '99',
        errors: [
          `Regla: Person, Rechazo: El evento ${code} requiere la persona que recibe (cac:IssuerParty/cac:Person) completa; falta: ${missing}`,
        ],
      });
    }
    expect(dian.registered(CUFE)).toEqual([]);
    expect((await sendEventUpdateStatus(dian.url, event('030'))).accepted).toBe(true);
    dian.register(CUFE, ['032']);
    expect((await sendEventUpdateStatus(dian.url, event('033'))).accepted).toBe(true);
    expect(dian.registered(CUFE)).toEqual(['030', '032', '033']);
  });

  it('rejects or fails on command, per CUFE and for a number of requests', async () => {
    dian.behave(CUFE, { mode: 'reject', times: 1, errors: ['Regla: X1, Rechazo: Motivo'] });
    expect(await sendEventUpdateStatus(dian.url, event('030'))).toMatchObject({
      accepted: false,
      alreadyRegistered: false,
      statusCode: '99',
      errors: ['Regla: X1, Rechazo: Motivo'],
    });
    dian.behave(CUFE, { mode: 'fail', times: 1 });
    const transient = await sendEventUpdateStatus(dian.url, event('030')).catch((error: unknown) => error);
    expect(transient).toBeInstanceOf(ApplicationFailure);
    expect(transient).toMatchObject({
      type: 'DianUnavailable',
      nonRetryable: false,
      message: 'DIAN answered HTTP 503',
    });
    expect((await sendEventUpdateStatus(dian.url, event('030'))).accepted).toBe(true);
    expect(dian.received(CUFE).map((request) => request.answer.status)).toEqual([200, 503, 200]);
  });

  it('treats a wrong address as a refusal, not as a transient failure', async () => {
    const refused = await sendEventUpdateStatus(`${dian.url}/nowhere/`, event('030')).catch((error: unknown) => error);
    expect(refused).toMatchObject({ type: 'DianRequestRefused', nonRetryable: true });
  });

  it('is steered over HTTP and checks what it is told', async () => {
    const control = (path: string, body: unknown) =>
      fetch(`${dian.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await control('/_control/behave', { cufe: CUFE, mode: 'explode' })).status).toBe(400);
    expect(
      (await control('/_control/behave', { cufe: CUFE.toUpperCase(), mode: 'fail', event_type: '032', times: 2 }))
        .status,
    ).toBe(200);
    expect((await control('/_control/register', { cufe: CUFE, events_type: ['030'] })).status).toBe(200);
    const state = (await (await fetch(`${dian.url}/_control/events/${CUFE}`)).json()) as {
      registered: string[];
      behaviour: { mode: string; eventType: string };
    };
    expect(state).toMatchObject({ registered: ['030'], behaviour: { mode: 'fail', eventType: '032' } });
  });
});
