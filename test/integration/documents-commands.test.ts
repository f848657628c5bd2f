import { expectStatus, type Client } from '@accounts-payable/client';
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
let sdk: Client;
beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  sdk = api.sdk(apiKey);
});
afterAll(() => api.close());

const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('POST /documents/{reference}/acknowledge', () => {
  it('answers {} and adds the system tag admitido once, however often it is called', async () => {
    const document = await seedDocument(api.orm, company);
    const params = { reference: document.id };
    for (let call = 0; call < 3; call++) {
      expect(await sdk.acknowledgeDocument({ params })).toMatchObject({ status: 200, body: {} });
    }
    const body = expectStatus(await sdk.getDocument({ params }), 200);
    expect(body).toMatchObject({ tags: ['admitido'], is_admited: true, approval_status: 'pending' });
    const em = companyEm(api.orm, company.id);
    expect(await em.findOneOrFail(Tag, { normalizedName: 'admitido' })).toMatchObject({ isSystem: true });
    expect(body.logs.filter((log) => log.metadata.change === 'acknowledged')).toHaveLength(1);
  });

  it('takes the name admitido for the system tag whoever names it first: tagging with it acknowledges', async () => {
    const { company: other, apiKey: otherKey } = await makeCompany(api.orm, { country: 'MEX' });
    const document = await seedDocument(api.orm, other);
    const params = { reference: document.id };
    expectStatus(await api.sdk(otherKey).tagDocument({ params, body: { tags_text: ['Admitido'] } }), 200);
    expect(expectStatus(await api.sdk(otherKey).getDocument({ params }), 200)).toMatchObject({
      tags: ['Admitido'],
      is_admited: true,
      approval_status: 'pending',
    });
    expect(await companyEm(api.orm, other.id).findOneOrFail(Tag, { normalizedName: 'admitido' })).toMatchObject({
      isSystem: true,
    });
  });

  it('answers 404 document_not_found for an unknown reference', async () => {
    const response = await sdk.acknowledgeDocument({ params: { reference: '01a1fd1b-78d3-7a06-918e-b55b593118bf' } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ code: 'document_not_found', message: expect.any(String) });
  });
});

describe('POST /documents/{reference}/tags', () => {
  it('creates unknown tags, adds them once (whatever their case), and propagates them to payments', async () => {
    const document = await seedDocument(api.orm, company, { payments: 2 });
    const params = { reference: document.id };
    const first = await sdk.tagDocument({ params, body: { tags_text: [' Proyecto Norte ', 'Urgente'] } });
    expect(first).toMatchObject({ status: 200, body: { message: expect.stringContaining('Proyecto Norte') } });
    const again = await sdk.tagDocument({ params, body: { tags_text: ['urgente', 'proyecto norte', 'Caja menor'] } });
    expect(again.status).toBe(200);
    const body = expectStatus(await sdk.getDocument({ params }), 200);
    expect(body.tags).toEqual(['Proyecto Norte', 'Urgente', 'Caja menor']);
    expect(body).toMatchObject({ approval_status: document.approvalStatus, is_admited: false });
    const em = companyEm(api.orm, company.id);
    expect(await em.count(Tag, { normalizedName: 'urgente' })).toBe(1);
    expect(await em.count(PaymentTag, { payment: { payable: { document: document.id } } })).toBe(6);
  });

  it('validates tags_text: at least one, each non-empty and bounded', async () => {
    const document = await seedDocument(api.orm, company);
    const path = `/public/api/v1/documents/${document.id}/tags`;
    // Bodies of the wrong shape on purpose: sent raw, past the client's types.
    for (const body of [
      {},
      { tags_text: [] },
      { tags_text: ['   '] },
      { tags_text: ['x'.repeat(101)] },
      { tags_text: 'urgente' },
    ]) {
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
    const params = { reference: document.id };
    const note = expectStatus(await sdk.addDocumentNote({ params, body: { comment: 'Revisar retención' } }), 201);
    expect(note).toEqual({
      reference: expect.any(String),
      comment: 'Revisar retención',
      file_path: null,
      file_name: null,
      created_by: { name: expect.stringMatching(/^API key apk_/) },
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(expectStatus(await sdk.getDocument({ params }), 200).notes).toEqual([note]);
  });

  it('links a public file URL, inferring file_name from it', async () => {
    const document = await seedDocument(api.orm, company);
    const response = await sdk.addDocumentNote({
      params: { reference: document.id },
      body: { file_path: 'https://files.example.com/soportes/Orden%20123.pdf' },
    });
    expect(response).toMatchObject({
      status: 201,
      body: {
        comment: null,
        file_path: 'https://files.example.com/soportes/Orden%20123.pdf',
        file_name: 'Orden 123.pdf',
      },
    });
  });

  it('links files at public IPv4 and IPv6 addresses, and names the rule that refuses a private one', async () => {
    const document = await seedDocument(api.orm, company);
    for (const file_path of [
      'https://93.184.216.34/soportes/factura-77.pdf',
      'https://[2001:4860:4860::8888]/soportes/factura-77.pdf',
      'http://181.49.0.1/soporte.png',
    ]) {
      expect(
        expectStatus(await sdk.addDocumentNote({ params: { reference: document.id }, body: { file_path } }), 201)
          .file_path,
      ).toBe(file_path);
    }
    const refused = expectStatus(
      await sdk.addDocumentNote({
        params: { reference: document.id },
        body: { file_path: 'https://[::ffff:10.9.8.7]/a.pdf' },
      }),
      400,
    );
    expect(refused.error.details).toEqual({
      file_path: [
        'Must point to a public address: ::ffff:a09:807 (IPv4-mapped) carries 10.9.8.7, which is in 10.0.0.0/8 (private); allow it with OUTBOUND_ALLOWED_NETWORKS',
      ],
    });
    expect(expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200).notes).toHaveLength(3);
  });

  it('infers a storable file_name from any path the URL rules accept: cut to 255 characters, escapes it cannot decode kept', async () => {
    const document = await seedDocument(api.orm, company);
    const named = async (file_path: string) =>
      expectStatus(await sdk.addDocumentNote({ params: { reference: document.id }, body: { file_path } }), 201)
        .file_name;
    const long = `${'á'.repeat(300)}.pdf`;
    expect(await named(`https://files.example.com/${encodeURIComponent(long)}`)).toBe(long.slice(0, 255));
    expect(await named('https://files.example.com/a%ZZ.pdf')).toBe('a%ZZ.pdf');
    expect(await named('https://files.example.com/a%00b.pdf')).toBe('a%00b.pdf');
  });

  it('refuses what the limits and rules forbid, naming the field', async () => {
    const document = await seedDocument(api.orm, company);
    const cases = [
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
    ] as const;
    for (const [body, field] of cases) {
      const response = await sdk.addDocumentNote({ params: { reference: document.id }, body });
      expect(Object.keys(expectStatus(response, 400).error.details), JSON.stringify(body).slice(0, 80)).toContain(
        field,
      );
    }
  });

  it('stores an uploaded PDF and serves it to its company only', async () => {
    const document = await seedDocument(api.orm, company);
    const file = new File([PDF], 'firmada.pdf', { type: 'application/pdf' });
    const note = expectStatus(
      await sdk.addDocumentNote({ params: { reference: document.id }, form: { comment: 'Factura firmada', file } }),
      201,
    );
    expect(note).toMatchObject({
      comment: 'Factura firmada',
      file_name: 'firmada.pdf',
      file_path: expect.stringContaining('/public/api/v1/files/'),
    });
    const download = await fetch(note.file_path!, { headers: { 'api-key': apiKey } });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await download.arrayBuffer()).equals(PDF)).toBe(true);
    const other = await makeCompany(api.orm);
    expect((await fetch(note.file_path!, { headers: { 'api-key': other.apiKey } })).status).toBe(404);
    expect((await fetch(note.file_path!)).status).toBe(401);
  });

  it('checks uploads by content and size, not by name', async () => {
    const document = await seedDocument(api.orm, company);
    const upload = (form: { file?: Blob; comment?: string }) =>
      sdk.addDocumentNote({ params: { reference: document.id }, form });
    const refusal = async (bytes: Buffer, name: string) =>
      expectStatus(await upload({ file: new File([new Uint8Array(bytes)], name) }), 400).error.details.file?.[0];
    expect((await upload({ file: new File([PNG], 'foto.png') })).status).toBe(201);
    expect(await refusal(Buffer.from('MZ not really a pdf'), 'virus.pdf')).toContain('checked by content');
    expect(await refusal(PNG, 'foto.pdf')).toContain('png');
    expect(await refusal(Buffer.concat([PDF, Buffer.alloc(5 * 1024 * 1024)]), 'grande.pdf')).toContain('5 MB');
    expect(expectStatus(await upload({ comment: 'sin archivo' }), 400).error.details).toHaveProperty('file');
    // The limit counts characters, as in JSON: 5000 emoji (10,000 UTF-16 units) pass, one more does not.
    expect((await upload({ file: new File([PNG], 'foto.png'), comment: '📎'.repeat(5000) })).status).toBe(201);
    expect(
      expectStatus(await upload({ file: new File([PNG], 'foto.png'), comment: '📎'.repeat(5001) }), 400).error.details,
    ).toHaveProperty('comment');
  });
});

describe('tenant isolation on documents', () => {
  it('answers 404 to another company for every document endpoint, and changes nothing', async () => {
    const document = await seedDocument(api.orm, company);
    const intruder = api.sdk((await makeCompany(api.orm, { country: 'COL' })).apiKey);
    const params = { reference: document.id };
    const attempts = [
      await intruder.getDocument({ params }),
      await intruder.acknowledgeDocument({ params }),
      await intruder.tagDocument({ params, body: { tags_text: ['intruso'] } }),
      await intruder.addDocumentNote({ params, body: { comment: 'intruso' } }),
    ];
    expect(attempts).toMatchObject(Array(4).fill({ status: 404, body: { code: 'document_not_found' } }));
    const body = expectStatus(await sdk.getDocument({ params }), 200);
    expect(body).toMatchObject({ tags: [], notes: [] });
    expect(await companyEm(api.orm, company.id).count(ActivityLog, { document })).toBe(1);
  });
});
