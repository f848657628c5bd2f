import { expectStatus, type DocumentList, type ListDocuments } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPANSIONS } from '../../api/schemas/documents.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { ensureTags } from '../../db/tags/tag.repository.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { countingOrm } from '../helpers/query-counter.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let apiKey: string;
const docs: Record<string, Document> = {};

beforeAll(async () => {
  api = await startTestApi();
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  docs.a = await seedDocument(api.orm, company, { documentNumber: 'FE-100', amountCents: 50_000_00n, issueDate: new Date('2026-09-01T09:00:00-05:00'), beneficiaryName: 'Ferretería Central', tags: ['Urgente'] });
  docs.b = await seedDocument(api.orm, company, { documentNumber: 'FE-200', amountCents: 150_000_00n, issueDate: new Date('2026-09-15T23:30:00-05:00'), type: 'credit_note', payments: 2, notes: 1 });
  docs.c = await seedDocument(api.orm, company, { documentNumber: 'FE-300', amountCents: 100_000_00n, issueDate: new Date('2026-10-01T00:00:00-05:00'), isCanceled: true, tags: ['admitido'] });
  docs.d = await seedDocument(api.orm, company, { documentNumber: 'ND-400', amountCents: 75_000_00n, issueDate: new Date('2026-10-20T12:00:00-05:00'), type: 'debit_note', approvalStatus: 'approved' });
});
afterAll(() => api.close());

type ListQuery = NonNullable<ListDocuments['request']['query']>;
const list = (query: ListQuery = {}, key = apiKey) => api.sdk(key).listDocuments({ query });
const page = async (query: ListQuery = {}, key = apiKey) => expectStatus(await list(query, key), 200);
const numbers = (body: DocumentList) => body.items.map((item) => item.document_number);
const BY_NUMBER = { sort_by: 'document_number', sort_order: 'asc' } as const;

describe('GET /documents', () => {
  it('answers the list envelope, newest first, with only the base fields by default', async () => {
    const body = await page();
    expect(body).toMatchObject({ total: 4, current_page: 1, page_size: 20, total_pages: 1 });
    expect(numbers(body)).toEqual(['ND-400', 'FE-300', 'FE-200', 'FE-100']);
    expect(body.items[0]).not.toHaveProperty('beneficiary');
    expect(body.items[0]).not.toHaveProperty('notes');
    expect(body.items.find((item) => item.document_number === 'FE-100')?.tags).toEqual(['Urgente']);
  });

  it('paginates: page and page_size, with the last page partial and a page past the end empty', async () => {
    const first = await page({ page_size: 3, ...BY_NUMBER });
    const second = await page({ page_size: 3, page: 2, ...BY_NUMBER });
    const beyond = await page({ page_size: 3, page: 5 });
    expect(numbers(first)).toEqual(['FE-100', 'FE-200', 'FE-300']);
    expect(numbers(second)).toEqual(['ND-400']);
    expect(second).toMatchObject({ total: 4, current_page: 2, page_size: 3, total_pages: 2 });
    expect(beyond.items).toEqual([]);
  });

  it('sorts by amount and by issue date in both directions', async () => {
    expect(numbers(await page({ sort_by: 'amount', sort_order: 'asc' }))).toEqual(['FE-100', 'ND-400', 'FE-300', 'FE-200']);
    expect(numbers(await page({ sort_by: 'issue_date', sort_order: 'desc' }))).toEqual(['ND-400', 'FE-300', 'FE-200', 'FE-100']);
  });

  it('filters by is_admited, is_canceled, tags (names in any case, or ids), type and approval status', async () => {
    expect(numbers(await page({ is_admited: 'true' }))).toEqual(['FE-300']);
    expect(numbers(await page({ is_admited: 'false', ...BY_NUMBER }))).toEqual(['FE-100', 'FE-200', 'ND-400']);
    expect(numbers(await page({ is_canceled: 'true' }))).toEqual(['FE-300']);
    expect((await page({ is_canceled: 'false' })).total).toBe(3);
    expect(numbers(await page({ tags: 'urgente' }))).toEqual(['FE-100']);
    const [urgent] = await ensureTags(companyEm(api.orm, company.id), company, ['Urgente']);
    expect(numbers(await page({ tags: `${urgent!.id},admitido`, ...BY_NUMBER }))).toEqual(['FE-100', 'FE-300']);
    expect(numbers(await page({ type: 'credit_note,debit_note', ...BY_NUMBER }))).toEqual(['FE-200', 'ND-400']);
    expect(numbers(await page({ approval_status: 'approved' }))).toEqual(['ND-400']);
  });

  it("filters issue dates by whole days in the company's time zone, both ends inclusive", async () => {
    // FE-200 was issued 2026-09-15 at 23:30 in Bogotá, already the 16th in UTC.
    expect(numbers(await page({ issue_date_from: '2026-09-15', issue_date_to: '2026-10-01', sort_by: 'issue_date', sort_order: 'asc' }))).toEqual(['FE-200', 'FE-300']);
  });

  it('searches the document number and the beneficiary name', async () => {
    expect(numbers(await page({ search: 'nd-4' }))).toEqual(['ND-400']);
    expect(numbers(await page({ search: 'ferreter' }))).toEqual(['FE-100']);
    expect((await page({ search: '100%' })).total).toBe(0);
  });

  it('adds each asked-for expansion, nested as in the detail', async () => {
    const body = await page({ fields: EXPANSIONS.join(','), ...BY_NUMBER });
    const withPayments = body.items.find((item) => item.document_number === 'FE-200')!;
    expect(withPayments.payments).toHaveLength(2);
    expect(withPayments.payments?.[0]).toMatchObject({ amount: 1000, amount_currency: 'COP', payment_method: 'banking_correspondent', payable_reference: withPayments.payables?.[0]?.reference });
    expect(withPayments.notes).toEqual([expect.objectContaining({ comment: 'Comentario 0', created_by: { name: 'Seed' } })]);
    expect(withPayments.beneficiary).toMatchObject({ identifier_type: 'NIT', contact_information: [], bank_accounts: [] });
    expect(withPayments.logs?.[0]?.event).toBe('document.created');
    expect(withPayments).toMatchObject({ document_support: null, expenses: null, erp_document: null, invoice_reception_events: [], payment_receipt_complements: [] });
  });

  it('refuses an unknown expansion, page size or sort with the validation envelope', async () => {
    const fields = expectStatus(await list({ fields: 'payments,secrets' }), 400);
    expect(fields.error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys(fields.error.details)).toEqual(['fields.1']);
    expect(expectStatus(await list({ page_size: 101 }), 400).error.details).toHaveProperty('page_size');
    expect(expectStatus(await list({ page: 0 }), 400).error.details).toHaveProperty('page');
    // A value outside the documented enum: sent raw, past the client's types.
    expect((await api.call('GET', '/public/api/v1/documents?sort_by=secret', { apiKey })).status).toBe(400);
  });

  it("never lists another company's documents", async () => {
    const other = await makeCompany(api.orm, { country: 'COL' });
    await seedDocument(api.orm, other.company, { documentNumber: 'OTHER-1' });
    expect(numbers(await page({ page_size: 100 }))).not.toContain('OTHER-1');
    expect(numbers(await page({}, other.apiKey))).toEqual(['OTHER-1']);
  });
});

describe('query count', () => {
  it('serves a page of 100 documents with every expansion in a bounded number of queries', async () => {
    const { orm: counted, queries } = await countingOrm();
    const { company: busy, apiKey: busyKey } = await makeCompany(api.orm, { country: 'COL' });
    for (let index = 0; index < 100; index++) await seedDocument(api.orm, busy, { payments: 1, notes: 1, tags: ['x'] });
    const counting = await startTestApi({ orm: counted });
    const countFor = async (pageSize: number) => {
      queries.length = 0;
      const body = expectStatus(await counting.sdk(busyKey).listDocuments({ query: { page_size: pageSize, fields: EXPANSIONS.join(',') } }), 200);
      expect(body.items).toHaveLength(pageSize);
      expect(body.items.every((item) => item.payments?.length === 1 && item.notes?.length === 1)).toBe(true);
      return queries.filter((query) => !query.includes('"api_keys"')).length;
    };
    try {
      await countFor(1); // warm-up: the ORM's own start-up queries are not the request's
      const forFive = await countFor(5);
      const forHundred = await countFor(100);
      // The page, its count, and one query per kind of relation (beneficiaries bring their contacts and bank
      // accounts): never one per document.
      expect(forHundred).toBe(forFive);
      expect(forHundred).toBeLessThanOrEqual(14);
    } finally {
      await counting.close();
      await counted.close();
    }
  });
});
