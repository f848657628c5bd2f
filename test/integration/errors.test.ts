import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Orm } from '../../db/orm.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let apiKey: string;
let company: Company;
beforeAll(async () => {
  api = await startTestApi();
  ({ apiKey, company } = await makeCompany(api.orm));
});
afterAll(() => api.close());

describe('error shapes', () => {
  it('answers an invalid parameter with the VALIDATION_ERROR envelope and per-field details', async () => {
    const response = await api.call('GET', '/public/api/v1/banks/not-a-uuid', { apiKey });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      success: false,
      error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { reference: [expect.any(String)] } },
    });
  });

  it('answers an unknown route with a flat 404', async () => {
    const response = await api.call('GET', '/public/api/v1/nothing-here', { apiKey });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'route_not_found', message: expect.any(String) });
  });

  it('answers a method the route does not take with a flat 405', async () => {
    const response = await api.call('DELETE', '/public/api/v1/banks', { apiKey });
    expect(response.status).toBe(405);
    expect(response.body.code).toBe('method_not_allowed');
    expect(response.headers.get('allow')).toContain('GET');
    const trace = await api.call('PATCH', '/public/api/v1/documents', { apiKey });
    expect(trace.status).toBe(405);
    expect(trace.headers.get('allow')).toContain('GET');
  });

  it('answers malformed JSON with a 400 validation envelope', async () => {
    const response = await api.call('POST', '/public/api/v1/banks', {
      apiKey,
      rawBody: '{"tags_text": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { body: ['Malformed JSON'] } });
  });

  it('drops __proto__ keys of a JSON body like any unknown field: nothing reaches a prototype', async () => {
    const document = await seedDocument(api.orm, company);
    const rawBody = '{"comment": "hola", "__proto__": {"polluted": true}, "nested": {"__proto__": {"polluted": true}}}';
    const response = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, {
      apiKey,
      rawBody,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(201);
    expect(response.body.comment).toBe('hola');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('refuses NUL characters and unpaired surrogates in the values a request uses as bad input, never as a server error', async () => {
    const document = await seedDocument(api.orm, company);
    const inBody = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, {
      apiKey,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"comment":"a\\u0000b"}',
    });
    const inQuery = await api.call('GET', '/public/api/v1/documents?search=a%00b', { apiKey });
    expect([inBody.status, inQuery.status]).toEqual([400, 400]);
    expect(inBody.body.error.details).toEqual({
      comment: ['Must be valid text: no NUL characters (U+0000) or unpaired surrogates'],
    });
    expect(inQuery.body.error.details).toEqual({
      search: ['Must be valid text: no NUL characters (U+0000) or unpaired surrogates'],
    });
    const surrogate = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, {
      apiKey,
      headers: { 'content-type': 'application/json' },
      rawBody: '{"comment":"a\\ud800b"}',
    });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body.error.details).toHaveProperty('comment');
    const badUrl = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, {
      apiKey,
      body: { comment: 'x', file_path: '' },
    });
    expect(badUrl.status).toBe(400);

    const form = new FormData();
    form.set('comment', 'a\u0000b');
    form.set('file', new Blob([Buffer.from('%PDF-1.4 x')], { type: 'application/pdf' }), 'a.pdf');
    const inMultipart = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, {
      apiKey,
      rawBody: form,
    });
    expect(inMultipart.status).toBe(400);
    expect(inMultipart.body.error.details).toEqual({
      comment: ['Must be valid text: no NUL characters (U+0000) or unpaired surrogates'],
    });

    // Unknown fields are ignored whatever they hold; an ERP record is refused on its own, in `errors`.
    const unknownField = await api.call('GET', '/public/api/v1/documents?unknown=a%00b', { apiKey });
    expect(unknownField.status).toBe(200);
    const erp = await api.call('POST', '/api/v1/erp/cost-centers', {
      headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
      rawBody:
        '{"items":[{"external_id":"a\\u0000b","name":"x"},{"external_id":"cc-nul-ok","name":"y","note\\u0000":"z"}]}',
    });
    expect(erp.status).toBe(200);
    expect(erp.body).toEqual({
      synced: 0,
      errors: [
        {
          index: 0,
          external_id: 'a\u0000b',
          errors: { external_id: ['Must be valid text: no NUL characters (U+0000) or unpaired surrogates'] },
        },
        {
          index: 1,
          external_id: 'cc-nul-ok',
          errors: { 'note\u0000': ['Must be valid text: no NUL characters (U+0000) or unpaired surrogates'] },
        },
      ],
    });
    const clean = await api.call('POST', '/api/v1/erp/cost-centers', {
      headers: { authorization: `ApiKey ${apiKey}` },
      body: { items: [{ external_id: 'cc-nul-ok', name: 'y', note: 'z' }] },
    });
    expect(clean.body).toEqual({ synced: 1, errors: [] });
  });

  it('answers a body over the limit with a flat 413', async () => {
    const response = await api.call('POST', '/public/api/v1/banks', {
      apiKey,
      rawBody: JSON.stringify({ comment: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ code: 'payload_too_large', message: expect.any(String) });
  });

  it('answers an unexpected failure with a flat 500 that leaks neither message nor stack', async () => {
    const lines: string[] = [];
    const broken = new Proxy(api.orm, {
      get: (target, property) =>
        property === 'em'
          ? {
              fork: () => {
                throw new Error('secret internals at /srv/db.ts:42');
              },
            }
          : Reflect.get(target, property),
    }) as Orm;
    const logger = pino(
      { level: 'error' },
      new Writable({ write: (chunk, _encoding, done) => (lines.push(String(chunk)), done()) }),
    );
    const brokenApi = await startTestApi({ orm: broken, logger });
    try {
      const response = await brokenApi.call('GET', '/public/api/v1/banks', { apiKey });
      const text = response.text;
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({ code: 'internal_error', message: 'An unexpected error occurred' });
      expect(text).not.toMatch(/secret internals|db\.ts|at /);
      // The operator still gets the cause, without the caller's key.
      expect(lines.join('')).toContain('secret internals');
      expect(lines.join('')).not.toContain(apiKey);
    } finally {
      await brokenApi.close();
    }
  });

  it('never lets a request hang: a body that never finishes is cut at the request timeout', async () => {
    const impatient = await startTestApi({ orm: api.orm, config: { requestTimeoutMs: 1_000 } });
    try {
      const { port } = new URL(impatient.url);
      const answer = await new Promise<string>((resolve) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            'POST /public/api/v1/banks HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
          );
        });
        let received = '';
        socket.on('data', (chunk) => (received += chunk));
        socket.on('close', () => resolve(received));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await impatient.close();
    }
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const echoed = await api.call('GET', '/healthz', { headers: { 'x-request-id': 'abc-123' } });
    const made = await api.call('GET', '/healthz', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
