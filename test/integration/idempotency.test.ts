import { createHash } from 'node:crypto';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { DocumentNote } from '../../db/documents/note.entity.ts';
import { uuidv7 } from '../../db/ids.ts';
import { IdempotencyKey } from '../../db/idempotency/idempotency-key.entity.ts';
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
  api.sdk(caller).addDocumentNote({ params: { reference: documentId }, body: { comment }, idempotencyKey: key });

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
      expect(expectStatus(response, 400).error.details).toHaveProperty(['Idempotency-Key']);
    }
  });

  it('refuses the same key with another body', async () => {
    const document = await seedDocument(api.orm, company);
    await note(document.id, 'k-reused', 'primero');
    const reused = await note(document.id, 'k-reused', 'otro');
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ code: 'idempotency_key_reused', message: expect.any(String) });
  });

  it('holds a multipart upload to what its form holds, whatever boundary carries it', async () => {
    const document = await seedDocument(api.orm, company);
    const upload = (key: string, pdf: string) => {
      // A new FormData draws a new boundary, as a client's retry does.
      const form = new FormData();
      form.set('comment', 'el soporte');
      form.set('file', new Blob([Buffer.from(pdf)], { type: 'application/pdf' }), 'soporte.pdf');
      return api.call('POST', `/public/api/v1/documents/${document.id}/notes`, {
        apiKey,
        headers: { 'idempotency-key': key },
        rawBody: form,
      });
    };
    const first = await upload('k-upload', '%PDF-1.4 primero');
    const again = await upload('k-upload', '%PDF-1.4 primero');
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);

    const anotherFile = await upload('k-upload', '%PDF-1.4 otro archivo');
    expect(anotherFile.status).toBe(422);
    expect(anotherFile.body).toEqual({ code: 'idempotency_key_reused', message: expect.any(String) });
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document })).toBe(1);
  });

  it('runs concurrent duplicates once: the others get the replay or 409 in progress', async () => {
    const document = await seedDocument(api.orm, company);
    const answers = await Promise.all(Array.from({ length: 6 }, () => note(document.id, 'k-race', 'a la vez')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
    for (const answer of answers.filter((candidate) => candidate.status === 409))
      expect(answer.body).toMatchObject({ code: 'idempotency_key_in_progress' });
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document })).toBe(1);
  });

  it('keeps client errors, and keys are per company', async () => {
    const document = await seedDocument(api.orm, company);
    const missing = await note('01a1fd1b-78d3-7a06-918e-b55b593118bf', 'k-404', 'x');
    const replayed = await note('01a1fd1b-78d3-7a06-918e-b55b593118bf', 'k-404', 'x');
    expect([missing.status, replayed.status]).toEqual([404, 404]);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    const other = await makeCompany(api.orm);
    const otherDocument = await seedDocument(api.orm, other.company);
    expect((await note(document.id, 'k-shared', 'mine')).status).toBe(201);
    expect((await note(otherDocument.id, 'k-shared', 'theirs', other.apiKey)).status).toBe(201);
  });

  it('takes over a claim its request abandoned (its process killed mid-request) once no request could still be running', async () => {
    const document = await seedDocument(api.orm, company);
    const path = `/public/api/v1/documents/${document.id}/notes`;
    const requestHash = createHash('sha256')
      .update(`POST ${path}\n`)
      .update(JSON.stringify({ comment: 'tras la caída' }))
      .digest('hex');
    const em = companyEm(api.orm, company.id);
    const abandon = (key: string, ageMs: number) =>
      em.insert(IdempotencyKey, {
        id: uuidv7(),
        company,
        key,
        method: 'POST',
        path,
        requestHash,
        status: 'in_progress',
        responseStatus: null,
        responseBody: null,
        createdAt: new Date(Date.now() - ageMs),
        expiresAt: new Date(Date.now() + 3_600_000),
      });
    await abandon('k-claimed-just-now', 5_000);
    await abandon('k-claimed-long-ago', 31_000);

    const stillRunning = await note(document.id, 'k-claimed-just-now', 'tras la caída');
    expect(stillRunning).toMatchObject({ status: 409, body: { code: 'idempotency_key_in_progress' } });
    const takenOver = await note(document.id, 'k-claimed-long-ago', 'tras la caída');
    expect(takenOver.status).toBe(201);
    const replayed = await note(document.id, 'k-claimed-long-ago', 'tras la caída');
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document })).toBe(1);
  });
});
