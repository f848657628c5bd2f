import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  createClient,
  expectStatus,
  UnexpectedResponseError,
  type Document,
  type FlatError,
} from '@accounts-payable/client';

/** A fetch that records what it was asked and answers what the test says. */
function fakeFetch(status: number, body?: unknown, contentType = 'application/json') {
  const calls: { url: string; method: string; headers: Headers; body: unknown }[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push({
      url: input instanceof Request ? input.url : input.toString(),
      method: init.method ?? 'GET',
      headers: new Headers(init.headers),
      body: init.body,
    });
    return new Response(body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: body === undefined ? {} : { 'content-type': contentType },
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

const REFERENCE = '01a1fd1b-78d3-7a06-918e-b55b593118bf';

describe('createClient', () => {
  it('sends the public API key, the path parameters and the query', async () => {
    const { fetch, calls } = fakeFetch(200, { items: [], total: 0, current_page: 2, page_size: 5, total_pages: 0 });
    const client = createClient({ baseUrl: 'http://api.test/', apiKey: 'apk_public', fetch });
    const result = await client.listDocuments({
      query: { page: 2, page_size: 5, is_admited: 'true', search: undefined },
    });
    expect(result.status).toBe(200);
    expect(calls[0]).toMatchObject({
      url: 'http://api.test/public/api/v1/documents?page=2&page_size=5&is_admited=true',
      method: 'GET',
      body: undefined,
    });
    expect(calls[0]!.headers.get('api-key')).toBe('apk_public');
    expect(calls[0]!.headers.get('authorization')).toBeNull();
  });

  it('sends the ERP catalog key as Authorization: ApiKey', async () => {
    const { fetch, calls } = fakeFetch(200, { synced: 1, errors: [] });
    await createClient({ baseUrl: 'http://api.test', apiKey: 'apk_erp', fetch }).syncVendors({
      body: { external_id: 'v-1', name: 'Vendor' },
    });
    expect(calls[0]!.url).toBe('http://api.test/api/v1/erp/vendors');
    expect(calls[0]!.headers.get('authorization')).toBe('ApiKey apk_erp');
    expect(calls[0]!.headers.get('api-key')).toBeNull();
  });

  it('sends JSON bodies, the Idempotency-Key and extra headers (which win over the defaults)', async () => {
    const { fetch, calls } = fakeFetch(200, { message: 'ok' });
    const client = createClient({
      baseUrl: 'http://api.test',
      apiKey: 'apk_k',
      fetch,
      headers: { 'x-trace': 'client' },
    });
    await client.tagDocument({
      params: { reference: REFERENCE },
      body: { tags_text: ['Urgente'] },
      idempotencyKey: 'key-1',
      headers: { 'x-trace': 'call' },
    });
    expect(calls[0]!.url).toBe(`http://api.test/public/api/v1/documents/${REFERENCE}/tags`);
    expect(calls[0]!.body).toBe('{"tags_text":["Urgente"]}');
    expect(Object.fromEntries(calls[0]!.headers)).toMatchObject({
      'content-type': 'application/json',
      'idempotency-key': 'key-1',
      'x-trace': 'call',
    });
  });

  it('sends a note attachment as multipart/form-data', async () => {
    const { fetch, calls } = fakeFetch(201, { reference: REFERENCE });
    const file = new File([new Uint8Array([37, 80, 68, 70])], 'firmada.pdf', { type: 'application/pdf' });
    await createClient({ baseUrl: 'http://api.test', fetch }).addDocumentNote({
      params: { reference: REFERENCE },
      form: { file, comment: 'Firmada' },
    });
    const form = calls[0]!.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.get('comment')).toBe('Firmada');
    expect((form.get('file') as File).name).toBe('firmada.pdf');
    expect(calls[0]!.headers.get('content-type')).toBeNull();
  });

  it('answers documented statuses as values, typed by status', async () => {
    const { fetch } = fakeFetch(404, { code: 'document_not_found', message: 'Document not found' });
    const result = await createClient({ baseUrl: 'http://api.test', fetch }).getDocument({
      params: { reference: REFERENCE },
    });
    if (result.status === 404) expectTypeOf(result.body).toEqualTypeOf<FlatError>();
    if (result.status === 200) expectTypeOf(result.body).toEqualTypeOf<Document>();
    expect(result).toMatchObject({ status: 404, body: { code: 'document_not_found' } });
    expect(() => expectStatus(result, 200)).toThrow(/answered 404 \(expected 200\).*document_not_found/);
    expect(expectStatus(result, 404).code).toBe('document_not_found');
  });

  it('reads an empty answer as undefined', async () => {
    const { fetch } = fakeFetch(204);
    const result = await createClient({ baseUrl: 'http://api.test', fetch }).getCurrentWorkflowStep({
      query: { entity_reference: REFERENCE },
    });
    expect(result).toMatchObject({ status: 204, body: undefined });
  });

  it('throws on a status the document does not declare, keeping what was answered', async () => {
    const { fetch } = fakeFetch(502, '<html>Bad gateway</html>', 'text/html');
    const error = await createClient({ baseUrl: 'http://api.test', fetch })
      .listBanks()
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ operationId: 'listBanks', status: 502, body: '<html>Bad gateway</html>' });
  });
});
