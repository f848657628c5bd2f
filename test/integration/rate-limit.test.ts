import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiConfigFromEnv } from '../../api/config.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ config: { rateLimit: { perMinute: 1, burst: 3 } } });
});
afterAll(() => api.close());

describe('per-key rate limiting', () => {
  it('answers 429 rate_limited with Retry-After once a key spends its burst, on the public and the ERP API', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await api.call('GET', '/public/api/v1/banks', { apiKey })).status);
    expect(statuses).toEqual([200, 200, 200]);

    const refused = await api.call('GET', '/public/api/v1/documents', { apiKey });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      code: 'rate_limited',
      message: expect.any(String),
      retry_after_seconds: expect.any(Number),
    });
    expect(Number(refused.headers.get('retry-after'))).toBe(refused.body.retry_after_seconds);
    expect(refused.body.retry_after_seconds).toBeGreaterThan(0);
    expect(refused.body.retry_after_seconds).toBeLessThanOrEqual(60);

    const erp = await api.call('GET', '/api/v1/erp/cost-centers', { headers: { authorization: `ApiKey ${apiKey}` } });
    expect(erp.status).toBe(429);
  });

  it('limits each key on its own, and never the requests that present no valid key', async () => {
    const first = await makeCompany(api.orm);
    const second = await makeCompany(api.orm);
    for (let i = 0; i < 3; i++) await api.call('GET', '/public/api/v1/banks', { apiKey: first.apiKey });
    expect((await api.call('GET', '/public/api/v1/banks', { apiKey: first.apiKey })).status).toBe(429);
    expect((await api.call('GET', '/public/api/v1/banks', { apiKey: second.apiKey })).status).toBe(200);
    expect((await api.call('GET', '/public/api/v1/banks', { apiKey: 'apk_unknown' })).status).toBe(401);
    expect((await api.call('GET', '/healthz')).status).toBe(200);
  });

  it('is off by default in development and on in production, configurable by environment', () => {
    expect(apiConfigFromEnv({}).rateLimit).toBeNull();
    expect(apiConfigFromEnv({ NODE_ENV: 'production' }).rateLimit).toEqual({ perMinute: 1_200, burst: 120 });
    expect(apiConfigFromEnv({ NODE_ENV: 'production', RATE_LIMIT_PER_MINUTE: '0' }).rateLimit).toBeNull();
    expect(apiConfigFromEnv({ RATE_LIMIT_PER_MINUTE: '600', RATE_LIMIT_BURST: '50' }).rateLimit).toEqual({
      perMinute: 600,
      burst: 50,
    });
    expect(() => apiConfigFromEnv({ RATE_LIMIT_PER_MINUTE: 'many' })).toThrow(/RATE_LIMIT_PER_MINUTE/);
  });
});
