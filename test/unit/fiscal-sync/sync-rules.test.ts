import { describe, expect, it } from 'vitest';
import { planSync, rateLimitRefusal, type CredentialView } from '../../../db/fiscal/fiscal-sync-rules.ts';
import { extractionStep } from '../../../fiscal/sat-request-state.ts';

const NOW = new Date('2026-03-20T15:00:00Z');
const none: CredentialView = {
  satCiecStatus: null,
  rfc: null,
  dianForwardingEnabled: false,
  dianNit: null,
  dianLegalRepresentative: null,
  lastSyncAt: null,
};
const code = (plan: ReturnType<typeof planSync>) => ('code' in plan ? plan.code : 'ok');

describe('preconditions of a fiscal sync', () => {
  it('Mexico: a CIEC registered for the RFC, and valid', () => {
    expect(code(planSync('MEX', null, NOW))).toBe('sat_credentials_not_configured');
    expect(code(planSync('MEX', { ...none, satCiecStatus: 'valid' }, NOW))).toBe('sat_credentials_not_configured');
    expect(code(planSync('MEX', { ...none, satCiecStatus: 'pending', rfc: 'AAA010101AAA' }, NOW))).toBe(
      'sat_ciec_pending',
    );
    expect(code(planSync('MEX', { ...none, satCiecStatus: 'invalid', rfc: 'AAA010101AAA' }, NOW))).toBe(
      'sat_ciec_invalid',
    );
    expect(planSync('MEX', { ...none, satCiecStatus: 'valid', rfc: 'AAA010101AAA' }, NOW)).toEqual({
      country: 'MEX',
      syncFrom: '2026-03-19T09:00:00-06:00',
      syncTo: '2026-03-20T09:00:00-06:00',
    });
  });

  it('Colombia: forwarding, then NIT and legal representative, then a non-empty window', () => {
    expect(code(planSync('COL', null, NOW))).toBe('dian_automatic_sync_not_configured');
    expect(code(planSync('COL', { ...none, dianForwardingEnabled: true }, NOW))).toBe(
      'dian_credentials_not_configured',
    );
    const ready = { ...none, dianForwardingEnabled: true, dianNit: '900123456', dianLegalRepresentative: 'Ana Pérez' };
    expect(planSync('COL', ready, NOW)).toEqual({ country: 'COL', syncFrom: '2026-02-03', syncTo: '2026-03-20' });
    expect(code(planSync('COL', { ...ready, lastSyncAt: new Date('2026-03-20T13:00:00Z') }, NOW))).toBe(
      'dian_sync_window_empty',
    );
  });

  it('other countries have no fiscal sync', () => {
    expect(code(planSync('PER', null, NOW))).toBe('fiscal_sync_not_supported_for_country');
  });
});

describe('the hourly rate limit', () => {
  it('answers the whole seconds left, rounded up', () => {
    expect(rateLimitRefusal(null, NOW)).toBeNull();
    expect(rateLimitRefusal(new Date(NOW.getTime() - 3_600_000), NOW)).toBeNull();
    expect(rateLimitRefusal(new Date(NOW.getTime() - 3_599_999), NOW)?.details.retry_after_seconds).toBe(1);
    expect(rateLimitRefusal(new Date(NOW.getTime() - 1), NOW)?.details.retry_after_seconds).toBe(3600);
    expect(rateLimitRefusal(new Date(NOW.getTime() - 3_000_500), NOW)).toMatchObject({
      code: 'fiscal_sync_rate_limited',
      details: { retry_after_seconds: 600 },
    });
  });
});

describe('SAT request states (EstadoSolicitud / CodigoEstadoSolicitud)', () => {
  const step = (
    satRequestStatus: number | null,
    satStatusCode = '5000',
    packageIds: string[] = [],
    errorCode: string | null = null,
  ) => extractionStep({ satRequestStatus, satStatusCode, packageIds, errorCode });

  it('keeps polling while accepted (1) or in progress (2)', () => {
    expect(step(null)).toEqual({ kind: 'poll', status: 'pending' });
    expect(step(1)).toEqual({ kind: 'poll', status: 'waiting' });
    expect(step(2)).toEqual({ kind: 'poll', status: 'running' });
  });

  it('downloads every package when finished (3)', () => {
    expect(step(3, '5000', ['A_01', 'A_02'])).toEqual({ kind: 'download', packageIds: ['A_01', 'A_02'] });
    expect(step(3, '5000', [])).toEqual({ kind: 'empty' });
  });

  it('reads 5/5004 as no documents, and stops on 4, other 5s and 6', () => {
    expect(step(5, '5004')).toEqual({ kind: 'empty' });
    expect(step(4, '404')).toMatchObject({ kind: 'failed', errorCode: 'sat_request_error' });
    expect(step(5, '5002')).toMatchObject({ kind: 'failed', errorCode: 'sat_requests_exhausted' });
    expect(step(5, '5003')).toMatchObject({ kind: 'failed', errorCode: 'sat_request_limit_exceeded' });
    expect(step(5, '5005')).toMatchObject({ kind: 'failed', errorCode: 'sat_request_duplicated' });
    expect(step(5, '5011')).toMatchObject({ kind: 'failed', errorCode: 'sat_request_rejected' });
    expect(step(6)).toMatchObject({ kind: 'failed', errorCode: 'sat_request_expired' });
    expect(step(9)).toMatchObject({ kind: 'failed', errorCode: 'sat_unknown_state' });
  });

  it("reports the provider's own failure with its code", () => {
    expect(step(null, '5000', [], 'invalid_credentials')).toMatchObject({
      kind: 'failed',
      errorCode: 'invalid_credentials',
    });
  });
});
