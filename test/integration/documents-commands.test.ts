import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { PaymentTag } from '../../db/tags/payment-tag.entity.ts';
import { Tag } from '../../db/tags/tag.entity.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
});
afterAll(() => api.close());

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('POST /documents/{reference}/acknowledge', () => {
  it('answers {} and adds the system tag admitido once, however often it is called', async () => {
    const document = await seedDocument(api.orm, company);
    const path = `/public/api/v1/documents/${document.id}`;
    for (let call = 0; call < 3; call++) {
      const response = await api.call('POST', `${path}/acknowledge`, { apiKey });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
    }
    const { body } = await api.call('GET', path, { apiKey });
    expect(body).toMatchObject({ tags: ['admitido'], is_admited: true, approval_status: 'pending' });
    const em = companyEm(api.orm, company.id);
    expect(await em.findOneOrFail(Tag, { normalizedName: 'admitido' })).toMatchObject({ isSystem: true });
    expect(body.logs.filter((log: { metadata: { change?: string } }) => log.metadata.change === 'acknowledged')).toHaveLength(1);
  });

  it('answers 404 document_not_found for an unknown reference', async () => {
    const response = await api.call('POST', '/public/api/v1/documents/01a1fd1b-78d3-7a06-918e-b55b593118bf/acknowledge', { apiKey });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'document_not_found', message: expect.any(String) });
  });
});

describe('POST /documents/{reference}/tags', () => {
  it('creates unknown tags, adds them once (whatever their case), and propagates them to payments', async () => {
    const document = await seedDocument(api.orm, company, { payments: 2 });
    const path = `/public/api/v1/documents/${document.id}/tags`;
    const first = await api.call('POST', path, { apiKey, body: { tags_text: [' Proyecto Norte ', 'Urgente'] } });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ message: expect.stringContaining('Proyecto Norte') });
    const again = await api.call('POST', path, { apiKey, body: { tags_text: ['urgente', 'proyecto norte', 'Caja menor'] } });
    expect(again.status).toBe(200);
    const { body } = await api.call('GET', `/public/api/v1/documents/${document.id}`, { apiKey });
    expect(body.tags).toEqual(['Proyecto Norte', 'Urgente', 'Caja menor']);
    const em = companyEm(api.orm, company.id);
    expect(await em.count(Tag, { normalizedName: 'urgente' })).toBe(1);
    expect(await em.count(PaymentTag, { payment: { payable: { document: document.id } } })).toBe(6);
  });

  it('validates tags_text: at least one, each non-empty and bounded', async () => {
    const document = await seedDocument(api.orm, company);
    const path = `/public/api/v1/documents/${document.id}/tags`;
    for (const body of [{}, { tags_text: [] }, { tags_text: ['   '] }, { tags_text: ['x'.repeat(101)] }, { tags_text: 'urgente' }]) {
      const response = await api.call('POST', path, { apiKey, body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys(response.body.error.details)[0]).toMatch(/^tags_text/);
    }
  });
});

describe('POST /documents/{reference}/notes', () => {
  it('adds a comment note and answers the note (201), which the document then carries', async () => {
    const document = await seedDocument(api.orm, company);
    const response = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, { apiKey, body: { comment: 'Revisar retención' } });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      reference: expect.any(String),
      comment: 'Revisar retención',
      file_path: null,
      file_name: null,
      created_by: { name: expect.stringMatching(/^API key apk_/) },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const { body } = await api.call('GET', `/public/api/v1/documents/${document.id}`, { apiKey });
    expect(body.notes).toEqual([response.body]);
  });

  it('links a public file URL, inferring file_name from it', async () => {
    const document = await seedDocument(api.orm, company);
    const response = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, { apiKey, body: { file_path: 'https://files.example.com/soportes/Orden%20123.pdf' } });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ comment: null, file_path: 'https://files.example.com/soportes/Orden%20123.pdf', file_name: 'Orden 123.pdf' });
  });

  it('refuses what the limits and rules forbid, naming the field', async () => {
    const document = await seedDocument(api.orm, company);
    const cases: [unknown, string][] = [
      [{}, 'comment'],
      [{ comment: '   ' }, 'comment'],
      [{ comment: 'x'.repeat(5001) }, 'comment'],
      [{ file_name: 'a.pdf', comment: 'sin archivo' }, 'file_path'],
      [{ file_path: 'ftp://files.example.com/a.pdf' }, 'file_path'],
      [{ file_path: 'https://files.example.com/a.exe' }, 'file_path'],
      [{ file_path: `https://files.example.com/${'a'.repeat(2040)}.pdf` }, 'file_path'],
      [{ file_path: 'https://files.example.com/a.pdf', file_name: 'x'.repeat(256) }, 'file_name'],
      [{ file_path: 'http://127.0.0.1/a.pdf' }, 'file_path'],
      [{ file_path: 'http://169.254.169.254/latest/a.png' }, 'file_path'],
      [{ file_path: 'http://10.0.0.7/a.png' }, 'file_path'],
      [{ file_path: 'http://[::1]/a.png' }, 'file_path'],
      [{ file_path: 'http://localhost/a.png' }, 'file_path'],
    ];
    for (const [body, field] of cases) {
      const response = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, { apiKey, body });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(response.body.error.details), JSON.stringify(body).slice(0, 80)).toContain(field);
    }
  });

  it('stores an uploaded PDF and serves it to its company only', async () => {
    const document = await seedDocument(api.orm, company);
    const form = new FormData();
    form.append('comment', 'Factura firmada');
    form.append('file', new Blob([PDF], { type: 'application/pdf' }), 'firmada.pdf');
    const response = await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, { apiKey, rawBody: form });
    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ comment: 'Factura firmada', file_name: 'firmada.pdf', file_path: expect.stringContaining('/public/api/v1/files/') });
    const download = await fetch(response.body.file_path, { headers: { 'api-key': apiKey } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    const other = await makeCompany(api.orm);
    expect((await fetch(response.body.file_path, { headers: { 'api-key': other.apiKey } })).status).toBe(404);
    expect((await fetch(response.body.file_path)).status).toBe(401);
  });

  it('checks uploads by content and size, not by name', async () => {
    const document = await seedDocument(api.orm, company);
    const upload = async (bytes: Buffer, name: string) => {
      const form = new FormData();
      form.append('file', new Blob([bytes]), name);
      return api.call('POST', `/public/api/v1/documents/${document.id}/notes`, { apiKey, rawBody: form });
    };
    expect((await upload(PNG, 'foto.png')).status).toBe(201);
    expect((await upload(Buffer.from('MZ not really a pdf'), 'virus.pdf')).body.error.details.file[0]).toContain('checked by content');
    expect((await upload(PNG, 'foto.pdf')).body.error.details.file[0]).toContain('png');
    const big = Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024)]);
    const tooBig = await upload(big, 'grande.pdf');
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.details.file[0]).toContain('5 MB');
    const none = new FormData();
    none.append('comment', 'sin archivo');
    expect((await api.call('POST', `/public/api/v1/documents/${document.id}/notes`, { apiKey, rawBody: none })).body.error.details).toHaveProperty('file');
  });
});

describe('tenant isolation on documents', () => {
  it("answers 404 to another company for every document endpoint, and changes nothing", async () => {
    const document = await seedDocument(api.orm, company);
    const other = await makeCompany(api.orm, { country: 'COL' });
    const path = `/public/api/v1/documents/${document.id}`;
    const attempts = [
      await api.call('GET', path, { apiKey: other.apiKey }),
      await api.call('POST', `${path}/acknowledge`, { apiKey: other.apiKey }),
      await api.call('POST', `${path}/tags`, { apiKey: other.apiKey, body: { tags_text: ['intruso'] } }),
      await api.call('POST', `${path}/notes`, { apiKey: other.apiKey, body: { comment: 'intruso' } }),
    ];
    expect(attempts.map((attempt) => [attempt.status, attempt.body.code])).toEqual(Array(4).fill([404, 'document_not_found']));
    const { body } = await api.call('GET', path, { apiKey });
    expect(body).toMatchObject({ tags: [], notes: [] });
    expect(await companyEm(api.orm, company.id).count(ActivityLog, { document })).toBe(1);
  });
});
