import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { DocumentNote } from '../../db/documents/note.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm));
});
afterAll(() => api.close());

const note = (documentId: string, key: string, comment: string, caller = apiKey) =>
  api.call('POST', `/public/api/v1/documents/${documentId}/notes`, { apiKey: caller, headers: { 'idempotency-key': key }, body: { comment } });

describe('Idempotency-Key', () => {
  it('replays the first answer (status and body) for the same key and body, executing once', async () => {
    const document = await seedDocument(api.orm, company);
    const first = await note(document.id, 'k-replay-1', 'una vez');
    const again = await note(document.id, 'k-replay-1', 'una vez');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document })).toBe(1);
  });

  it('refuses an empty or overlong key', async () => {
    const document = await seedDocument(api.orm, company);
    for (const key of ['', 'k'.repeat(256)]) {
      const response = await note(document.id, key, 'x');
      expect(response.status, JSON.stringify(key)).toBe(400);
      expect(response.body.error.details).toHaveProperty(['Idempotency-Key']);
    }
  });

  it('refuses the same key with another body', async () => {
    const document = await seedDocument(api.orm, company);
    await note(document.id, 'k-reused', 'primero');
    const reused = await note(document.id, 'k-reused', 'otro');
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ code: 'idempotency_key_reused', message: expect.any(String) });
  });

  it('runs concurrent duplicates once: the others get the replay or 409 in progress', async () => {
    const document = await seedDocument(api.orm, company);
    const answers = await Promise.all(Array.from({ length: 6 }, () => note(document.id, 'k-race', 'a la vez')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((candidate) => candidate.status === 409)) expect(answer.body.code).toBe('idempotency_key_in_progress');
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document })).toBe(1);
  });

  it('keeps client errors, and keys are per company', async () => {
    const document = await seedDocument(api.orm, company);
    const missing = await api.call('POST', '/public/api/v1/documents/01a1fd1b-78d3-7a06-918e-b55b593118bf/notes', { apiKey, headers: { 'idempotency-key': 'k-404' }, body: { comment: 'x' } });
    const replayed = await api.call('POST', '/public/api/v1/documents/01a1fd1b-78d3-7a06-918e-b55b593118bf/notes', { apiKey, headers: { 'idempotency-key': 'k-404' }, body: { comment: 'x' } });
    expect([missing.status, replayed.status]).toEqual([404, 404]);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const other = await makeCompany(api.orm);
    const otherDocument = await seedDocument(api.orm, other.company);
    expect((await note(document.id, 'k-shared', 'mine')).status).toBe(201);
    expect((await note(otherDocument.id, 'k-shared', 'theirs', other.apiKey)).status).toBe(201);
  });
});
