import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTE_GROUPS } from '../../api/routes/index.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const response = await api.call('GET', '/public/api/v1/openapi.json');
    expect(response.status).toBe(200);
    const validator = new Validator();
    const result = await validator.validate(response.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    // The contract's version, whatever the release.
    expect(response.body.info.version).toBe('1.0.0');
  });

  it('describes every declared route with its security, parameters and error responses', async () => {
    const document = (await api.call('GET', '/public/api/v1/openapi.json')).body;
    for (const group of ROUTE_GROUPS) {
      for (const route of group.routes) {
        const path = `${group.prefix}${route.path}`.replace(/:([A-Za-z_]+)/g, '{$1}');
        const operation = document.paths[path]?.[route.method];
        expect(operation, `${route.method} ${path}`).toBeDefined();
        expect(operation.operationId).toBe(route.operationId);
        if (route.auth !== 'none') expect(operation.responses['401']).toBeDefined();
      }
    }
    const getBank = document.paths['/public/api/v1/banks/{reference}'].get;
    expect(getBank.parameters).toEqual([expect.objectContaining({ name: 'reference', in: 'path', required: true })]);
    expect(getBank.responses['404'].description).toContain('bank_not_found');
    expect(getBank.responses['403'].description).toContain('insufficient_scope');
    expect(document.components.schemas.Bank.required).toEqual(['reference', 'name', 'bank_code', 'logo']);
    expect(document.components.schemas.ValidationError).toBeDefined();
  });
});

describe('docs page', () => {
  it('serves an HTML page whose scripts and styles come from this server', async () => {
    const page = await api.call('GET', '/public/api/v1/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) {
      expect(asset).not.toMatch(/^https?:/);
      const response = await fetch(new URL(asset, `${api.url}/public/api/v1/docs`));
      expect(response.status, asset).toBe(200);
    }
  });
});
