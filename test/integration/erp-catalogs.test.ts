import { DefaultLogger, type LoggerOptions } from '@mikro-orm/core';
import { expectStatus, type ErpPurchaseOrderRecord, type ListProducts } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ErpCostCenter } from '../../db/erp/cost-center.entity.ts';
import { ErpPurchaseOrder } from '../../db/erp/purchase-order.entity.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

const erpHeaders = (apiKey: string) => ({ authorization: `ApiKey ${apiKey}` });
/** For batches whose records break the documented types on purpose: each is reported on its own. */
const rawSync = (apiKey: string, catalog: string, body: unknown) =>
  api.call('POST', `/api/v1/erp/${catalog}`, { headers: erpHeaders(apiKey), body });
/** The company's cost centers, first page. */
const costCenters = async (apiKey: string) => expectStatus(await api.sdk(apiKey).listCostCenters(), 200);
const byId = <T extends { external_id: string }>(items: T[]) =>
  Object.fromEntries(items.map((item) => [item.external_id, item]));

describe('authentication on the ERP catalog API', () => {
  it('accepts Authorization: ApiKey <key> and refuses the public api-key header, other schemes and no key with 401', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const record = { external_id: 'CC-1', name: 'Operaciones' };
    expect((await api.sdk(apiKey).syncCostCenters({ body: record })).status).toBe(200);
    const viaPublicHeader = await api.call('POST', '/api/v1/erp/cost-centers', { apiKey, body: record });
    expect(viaPublicHeader.status).toBe(401);
    expect(viaPublicHeader.body).toEqual({ code: 'unauthorized', message: expect.any(String) });
    expect((await api.call('GET', '/api/v1/erp/cost-centers', { apiKey })).status).toBe(401);
    expect(
      (await api.call('GET', '/api/v1/erp/cost-centers', { headers: { authorization: `Bearer ${apiKey}` } })).status,
    ).toBe(401);
    expect(
      (await api.call('GET', '/api/v1/erp/cost-centers', { headers: { authorization: 'ApiKey apk_unknown' } })).status,
    ).toBe(401);
    expect((await api.call('GET', '/api/v1/erp/cost-centers')).status).toBe(401);
  });

  it('refuses a scoped key with 403 insufficient_scope: no scope names the ERP catalogs', async () => {
    const company = await makeCompany(api.orm);
    const scoped = await company.scopedKey(['payments:read']);
    const write = await api.sdk(scoped).syncCostCenters({ body: { external_id: 'CC-1', name: 'Operaciones' } });
    const read = await api.sdk(scoped).listVendors();
    expect([write.status, read.status]).toEqual([403, 403]);
    expect(write.body).toMatchObject({ code: 'insufficient_scope', required_scope: null });
    expect((await costCenters(company.apiKey)).total).toBe(0);
  });
});

describe('POST /api/v1/erp/cost-centers', () => {
  it('creates from one record, then updates the same external_id (the record as sent replaces the stored one)', async () => {
    const { company, apiKey } = await makeCompany(api.orm);
    const erp = api.sdk(apiKey);
    // Fields the catalog does not know are kept in `raw`: sent past the client's types.
    const created = await rawSync(apiKey, 'cost-centers', {
      external_id: 'CC-100',
      code: '100',
      name: 'Administración',
      description: 'Gastos generales',
      extra_erp_field: 7,
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ synced: 1, errors: [] });
    const updated = await erp.syncCostCenters({
      body: { items: [{ external_id: 'CC-100', code: '100', name: 'Administración y finanzas', is_active: false }] },
    });
    expect(updated).toMatchObject({ status: 200, body: { synced: 1, errors: [] } });
    const body = expectStatus(await erp.listCostCenters(), 200);
    expect(body).toMatchObject({ total: 1, current_page: 1, page_size: 20, total_pages: 1 });
    expect(body.items[0]).toEqual({
      external_id: 'CC-100',
      code: '100',
      name: 'Administración y finanzas',
      description: null,
      parent_external_id: null,
      depth: 0,
      path: ['CC-100'],
      missing_ancestor_external_id: null,
      is_active: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const stored = await companyEm(api.orm, company.id).findOneOrFail(ErpCostCenter, { externalId: 'CC-100' });
    expect(stored.raw).toEqual({
      external_id: 'CC-100',
      code: '100',
      name: 'Administración y finanzas',
      is_active: false,
    });
    expect(stored.createdAt.getTime()).toBeLessThanOrEqual(stored.updatedAt.getTime());
  });

  it('syncs the valid records of a mixed batch and reports each invalid one with its index, external_id and field messages', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = await rawSync(apiKey, 'cost-centers', {
      items: [
        { external_id: 'CC-1', name: 'Ventas' },
        { external_id: 'CC-2' },
        { name: 'Sin id' },
        { external_id: 'CC-3', name: 'Producción', parent_external_id: 42 },
        'not a record',
        { external_id: 'CC-4', name: 'Logística', parent_external_id: 'CC-1' },
        { external_id: 'CC-1', name: 'Ventas otra vez' },
      ],
    });
    expect(response.status).toBe(200);
    expect(response.body.synced).toBe(2);
    expect(response.body.errors).toEqual([
      { index: 1, external_id: 'CC-2', errors: { name: [expect.any(String)] } },
      { index: 2, external_id: null, errors: { external_id: [expect.any(String)] } },
      { index: 3, external_id: 'CC-3', errors: { parent_external_id: [expect.any(String)] } },
      { index: 4, external_id: null, errors: { body: [expect.any(String)] } },
      { index: 6, external_id: 'CC-1', errors: { external_id: ['Repeats the record at index 0 of this batch'] } },
    ]);
    const body = await costCenters(apiKey);
    expect(body.items.map((item) => [item.external_id, item.name])).toEqual([
      ['CC-1', 'Ventas'],
      ['CC-4', 'Logística'],
    ]);
  });

  it('answers VALIDATION_ERROR for a body that is neither { items } nor one record, and for a batch over 1,000', async () => {
    const { apiKey } = await makeCompany(api.orm);
    for (const [body, field] of [
      [[{ external_id: 'CC-1', name: 'x' }], 'body'],
      [{}, 'body'],
      [{ items: [] }, 'items'],
      [{ items: 'CC-1' }, 'items'],
      [{ items: Array.from({ length: 1001 }, (_, index) => ({ external_id: `CC-${index}`, name: 'x' })) }, 'items'],
    ] as const) {
      const response = await rawSync(apiKey, 'cost-centers', body);
      expect(response.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(response.body).toEqual({
        success: false,
        error: { code: 'VALIDATION_ERROR', message: expect.any(String), details: { [field]: [expect.any(String)] } },
      });
    }
    expect((await costCenters(apiKey)).total).toBe(0);
  });

  it('accepts 1,000 records in one request and one transaction', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const items = Array.from({ length: 1000 }, (_, index) => ({
      external_id: `CC-${String(index).padStart(4, '0')}`,
      code: String(index),
      name: `Centro ${index}`,
      parent_external_id: index === 0 ? null : `CC-${String(Math.floor((index - 1) / 10)).padStart(4, '0')}`,
    }));
    const erp = api.sdk(apiKey);
    const started = Date.now();
    const response = await erp.syncCostCenters({ body: { items } });
    expect(response).toMatchObject({ status: 200, body: { synced: 1000, errors: [] } });
    expect(Date.now() - started).toBeLessThan(10_000);
    const again = await erp.syncCostCenters({
      body: { items: items.map((item) => ({ ...item, name: `${item.name} (v2)` })) },
    });
    expect(again.body).toEqual({ synced: 1000, errors: [] });
    const body = expectStatus(await erp.listCostCenters({ query: { search: 'CC-0999' } }), 200);
    expect(body.items[0]).toMatchObject({
      name: 'Centro 999 (v2)',
      depth: 3,
      path: ['CC-0000', 'CC-0009', 'CC-0099', 'CC-0999'],
    });
    expect(expectStatus(await erp.listCostCenters({ query: { page_size: 1 } }), 200).total).toBe(1000);
  });

  it('writes a batch with one upsert statement, and checks a hierarchy with one query per level of depth', async () => {
    const queries: string[] = [];
    class Counting extends DefaultLogger {
      override logQuery(context: Parameters<DefaultLogger['logQuery']>[0]) {
        queries.push(String(context.query));
      }
    }
    const counted: Orm = await initORM(
      { url: inject('databaseUrl'), poolMax: 5, statementTimeoutMs: 30_000, debug: false },
      { debug: ['query'], loggerFactory: (options: LoggerOptions) => new Counting(options) },
    );
    const counting = await startTestApi({ orm: counted });
    try {
      const { apiKey } = await makeCompany(api.orm);
      const erp = counting.sdk(apiKey);
      const flat = Array.from({ length: 1000 }, (_, index) => ({
        external_id: `V-${index}`,
        name: `Proveedor ${index}`,
      }));
      queries.length = 0;
      expect(expectStatus(await erp.syncVendors({ body: { items: flat } }), 200).synced).toBe(1000);
      expect(queries.filter((query) => query.startsWith('insert into "erp_vendors"'))).toHaveLength(1);
      expect(queries.filter((query) => /erp_/.test(query))).toHaveLength(1);

      // Three levels: 1 root, 10 children, 989 grandchildren, sent leaves first.
      const tree = Array.from({ length: 1000 }, (_, index) => ({
        external_id: `N-${index}`,
        name: `Nodo ${index}`,
        parent_external_id: index === 0 ? null : index <= 10 ? 'N-0' : `N-${1 + (index % 10)}`,
      })).reverse();
      queries.length = 0;
      expect(expectStatus(await erp.syncCostCenters({ body: { items: tree } }), 200).synced).toBe(1000);
      expect(queries.filter((query) => /from "erp_cost_centers"/.test(query))).toHaveLength(0);
      expect(queries.filter((query) => query.startsWith('insert into "erp_cost_centers"'))).toHaveLength(1);

      // 1,000 new leaves under stored grandchildren: their links are read grandchildren, children, root.
      const leaves = Array.from({ length: 1000 }, (_, index) => ({
        external_id: `L-${index}`,
        name: `Hoja ${index}`,
        parent_external_id: `N-${11 + (index % 989)}`,
      }));
      queries.length = 0;
      expect(expectStatus(await erp.syncCostCenters({ body: { items: leaves } }), 200).synced).toBe(1000);
      expect(queries.filter((query) => /from "erp_cost_centers"/.test(query))).toHaveLength(3);
    } finally {
      await counting.close();
      await counted.close();
    }
  });
});

describe('hierarchies', () => {
  it('takes a parent after its child in the same batch and in a later one, and shows depth and path', async () => {
    const { apiKey } = await makeCompany(api.orm);
    await api.sdk(apiKey).syncCostCenters({
      body: {
        items: [
          { external_id: 'CC-LEAF', name: 'Bodega norte', parent_external_id: 'CC-MID' },
          { external_id: 'CC-MID', name: 'Bodegas', parent_external_id: 'CC-ROOT' },
        ],
      },
    });
    let items = byId((await costCenters(apiKey)).items);
    expect(items['CC-LEAF']).toMatchObject({
      parent_external_id: 'CC-MID',
      depth: 2,
      path: ['CC-ROOT', 'CC-MID', 'CC-LEAF'],
      missing_ancestor_external_id: 'CC-ROOT',
    });
    expect(items['CC-MID']).toMatchObject({
      depth: 1,
      path: ['CC-ROOT', 'CC-MID'],
      missing_ancestor_external_id: 'CC-ROOT',
    });

    expect(
      (await api.sdk(apiKey).syncCostCenters({ body: { external_id: 'CC-ROOT', name: 'Operaciones' } })).body,
    ).toEqual({ synced: 1, errors: [] });
    items = byId((await costCenters(apiKey)).items);
    expect(items['CC-LEAF']).toMatchObject({
      depth: 2,
      path: ['CC-ROOT', 'CC-MID', 'CC-LEAF'],
      missing_ancestor_external_id: null,
    });
    expect(items['CC-ROOT']).toMatchObject({ depth: 0, path: ['CC-ROOT'], parent_external_id: null });

    const children = expectStatus(
      await api.sdk(apiKey).listCostCenters({ query: { parent_external_id: 'CC-MID' } }),
      200,
    );
    expect(children.items.map((item: { external_id: string }) => item.external_id)).toEqual(['CC-LEAF']);
  });

  it('refuses records whose parent link closes a cycle, within the batch or with what is stored, and writes nothing of them', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const self = await api
      .sdk(apiKey)
      .syncCostCenters({ body: { external_id: 'A', name: 'A', parent_external_id: 'A' } });
    expect(self.body).toEqual({
      synced: 0,
      errors: [{ index: 0, external_id: 'A', errors: { parent_external_id: ['Would close a cycle: A → A'] } }],
    });

    const pair = expectStatus(
      await api.sdk(apiKey).syncCostCenters({
        body: {
          items: [
            { external_id: 'A', name: 'A', parent_external_id: 'B' },
            { external_id: 'B', name: 'B', parent_external_id: 'A' },
            { external_id: 'C', name: 'C', parent_external_id: 'A' },
          ],
        },
      }),
      200,
    );
    expect(pair.synced).toBe(1);
    expect(pair.errors).toEqual([
      { index: 0, external_id: 'A', errors: { parent_external_id: ['Would close a cycle: A → B → A'] } },
      { index: 1, external_id: 'B', errors: { parent_external_id: ['Would close a cycle: B → A → B'] } },
    ]);

    // Stored: B → A (A is a root). Moving A under C (whose parent is B) would close A → C → B → A.
    await api.sdk(apiKey).syncCostCenters({
      body: {
        items: [
          { external_id: 'A', name: 'A' },
          { external_id: 'B', name: 'B', parent_external_id: 'A' },
        ],
      },
    });
    await api.sdk(apiKey).syncCostCenters({ body: { external_id: 'C', name: 'C', parent_external_id: 'B' } });
    const closing = await api
      .sdk(apiKey)
      .syncCostCenters({ body: { external_id: 'A', name: 'A renamed', parent_external_id: 'C' } });
    expect(closing.body).toEqual({
      synced: 0,
      errors: [{ index: 0, external_id: 'A', errors: { parent_external_id: ['Would close a cycle: A → C → B → A'] } }],
    });
    const items = byId((await costCenters(apiKey)).items);
    expect(items.A).toMatchObject({ name: 'A', parent_external_id: null, depth: 0 });
    expect(items.C).toMatchObject({ path: ['A', 'B', 'C'] });

    // Re-rooting in one batch is fine: A moves under a new root D while C stays under B.
    const reroot = await api.sdk(apiKey).syncCostCenters({
      body: {
        items: [
          { external_id: 'A', name: 'A', parent_external_id: 'D' },
          { external_id: 'D', name: 'D' },
        ],
      },
    });
    expect(reroot.body).toEqual({ synced: 2, errors: [] });
    expect(byId((await costCenters(apiKey)).items).C).toMatchObject({ path: ['D', 'A', 'B', 'C'], depth: 3 });
  });

  it('applies the same rules to book accounts', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = await rawSync(apiKey, 'book-accounts', {
      items: [
        {
          external_id: 'BA-220505',
          code: '220505',
          name: 'Proveedores nacionales',
          nature: 'credit',
          parent_external_id: 'BA-2205',
        },
        { external_id: 'BA-2205', code: '2205', name: 'Proveedores', nature: 'credit', parent_external_id: 'BA-22' },
        { external_id: 'BA-22', code: '22', name: 'Proveedores', nature: 'credit', parent_external_id: 'BA-220505' },
        { external_id: 'BA-5135', code: '5135', name: 'Servicios', nature: 'sideways' },
        { external_id: 'BA-51', name: 'Operacionales de administración' },
      ],
    });
    expect(response.body.synced).toBe(0);
    expect(
      response.body.errors.map((error: { index: number; errors: object }) => [error.index, Object.keys(error.errors)]),
    ).toEqual([
      [0, ['parent_external_id']],
      [1, ['parent_external_id']],
      [2, ['parent_external_id']],
      [3, ['nature']],
      [4, ['code']],
    ]);
    await api.sdk(apiKey).syncBookAccounts({
      body: {
        items: [
          {
            external_id: 'BA-220505',
            code: '220505',
            name: 'Proveedores nacionales',
            nature: 'credit',
            parent_external_id: 'BA-2205',
          },
          { external_id: 'BA-2205', code: '2205', name: 'Proveedores', nature: 'credit', parent_external_id: 'BA-22' },
          { external_id: 'BA-22', code: '22', name: 'Proveedores', nature: 'credit' },
        ],
      },
    });
    const body = expectStatus(await api.sdk(apiKey).listBookAccounts(), 200);
    expect(body.items.map((item) => [item.code, item.depth])).toEqual([
      ['22', 0],
      ['2205', 1],
      ['220505', 2],
    ]);
    expect(body.items[2]).toMatchObject({
      nature: 'credit',
      path: ['BA-22', 'BA-2205', 'BA-220505'],
      missing_ancestor_external_id: null,
    });
  });
});

describe('the other catalogs', () => {
  it('vendors: identifier normalised (a NIT check digit dropped), type required with a number', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = expectStatus(
      await api.sdk(apiKey).syncVendors({
        body: {
          items: [
            {
              external_id: 'V-1',
              name: 'Ferretería Central S.A.S.',
              identifier_type: 'nit',
              identifier_number: '900.123.456-7',
              email: 'Facturas@Ferreteria.co',
              payment_term_external_id: 'PT-30',
              book_account_external_id: 'BA-1435',
            },
            { external_id: 'V-2', name: 'Sin tipo', identifier_number: '123' },
            { external_id: 'V-3', name: 'Correo malo', email: 'no-es-correo' },
          ],
        },
      }),
      200,
    );
    expect(response.synced).toBe(1);
    expect(response.errors.map((error) => [error.index, Object.keys(error.errors)])).toEqual([
      [1, ['identifier_type']],
      [2, ['email']],
    ]);
    expect(expectStatus(await api.sdk(apiKey).listVendors(), 200).items[0]).toMatchObject({
      external_id: 'V-1',
      identifier_type: 'NIT',
      identifier_number: '900123456',
      email: 'facturas@ferreteria.co',
      payment_term_external_id: 'PT-30',
      book_account_external_id: 'BA-1435',
      is_active: true,
    });
  });

  it('products: taxes and book account by external_id, repeated taxes refused', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = await api.sdk(apiKey).syncProducts({
      body: {
        items: [
          {
            external_id: 'P-1',
            code: 'TORN-01',
            name: 'Tornillo 1/4',
            unit_code: '94',
            book_account_external_id: 'BA-1435',
            tax_external_ids: ['T-IVA19'],
          },
          { external_id: 'P-2', name: 'Doble', tax_external_ids: ['T-IVA19', 'T-IVA19'] },
        ],
      },
    });
    expect(response.body).toMatchObject({
      synced: 1,
      errors: [{ index: 1, errors: { tax_external_ids: [expect.any(String)] } }],
    });
    expect(expectStatus(await api.sdk(apiKey).listProducts(), 200).items).toEqual([
      expect.objectContaining({
        external_id: 'P-1',
        code: 'TORN-01',
        unit_code: '94',
        book_account_external_id: 'BA-1435',
        tax_external_ids: ['T-IVA19'],
        description: null,
      }),
    ]);
  });

  it('taxes: rate as a fraction from a number or a decimal string; withholding types default to is_withholding', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = await rawSync(apiKey, 'taxes', {
      items: [
        {
          external_id: 'T-IVA19',
          code: '01',
          name: 'IVA 19%',
          type: 'iva',
          rate: 0.19,
          book_account_external_id: 'BA-240810',
        },
        { external_id: 'T-RF25', name: 'Retefuente servicios 2.5%', type: 'retefuente', rate: '0.025' },
        { external_id: 'T-ICA', name: 'ReteICA 9.66 x mil', type: 'reteica', rate: '0.00966', is_withholding: true },
        { external_id: 'T-BAD', name: 'Tasa rara', type: 'iva', rate: '19%' },
        { external_id: 'T-NEG', name: 'Negativa', type: 'vat', rate: -0.1 },
      ],
    });
    expect(response.body.synced).toBe(3);
    expect(
      response.body.errors.map((error: { external_id: string; errors: object }) => [
        error.external_id,
        Object.keys(error.errors),
      ]),
    ).toEqual([
      ['T-BAD', ['rate']],
      ['T-NEG', ['type', 'rate']],
    ]);
    const items = byId(expectStatus(await api.sdk(apiKey).listTaxes(), 200).items);
    expect(items['T-IVA19']).toMatchObject({
      type: 'iva',
      rate: 0.19,
      is_withholding: false,
      book_account_external_id: 'BA-240810',
    });
    expect(items['T-RF25']).toMatchObject({ rate: 0.025, is_withholding: true });
    expect(items['T-ICA']).toMatchObject({ rate: 0.00966, is_withholding: true });
  });

  it('payment terms: installments must add up to exactly 100; days alone make one installment', async () => {
    const { apiKey } = await makeCompany(api.orm);
    const response = expectStatus(
      await api.sdk(apiKey).syncPaymentTerms({
        body: {
          items: [
            { external_id: 'PT-30', name: '30 días', days: 30 },
            {
              external_id: 'PT-50-50',
              name: '50% a 30, 50% a 60',
              days: 60,
              installments: [
                { days: 30, percentage: 50 },
                { days: 60, percentage: '50.00' },
              ],
            },
            {
              external_id: 'PT-3',
              name: 'Tres cuotas',
              installments: [
                { days: 30, percentage: 33.3333 },
                { days: 60, percentage: 33.3333 },
                { days: 90, percentage: 33.3333 },
              ],
            },
            { external_id: 'PT-0', name: 'Nada' },
          ],
        },
      }),
      200,
    );
    expect(response.synced).toBe(2);
    expect(response.errors).toEqual([
      {
        index: 2,
        external_id: 'PT-3',
        errors: { installments: ['The percentages must add up to 100 (they add up to 99.9999)'] },
      },
      { index: 3, external_id: 'PT-0', errors: { days: [expect.any(String)] } },
    ]);
    const items = byId(expectStatus(await api.sdk(apiKey).listPaymentTerms(), 200).items);
    expect(items['PT-30']).toMatchObject({ days: 30, installments: [{ days: 30, percentage: 100 }] });
    expect(items['PT-50-50']).toMatchObject({
      days: 60,
      installments: [
        { days: 30, percentage: 50 },
        { days: 60, percentage: 50 },
      ],
    });
  });

  it('purchase orders: lines with quantities and unit prices (rounded half away from zero to cents), pending at most the quantity', async () => {
    const { company, apiKey } = await makeCompany(api.orm);
    expectStatus(await api.sdk(apiKey).syncVendors({ body: { external_id: 'V-1', name: 'Ferretería Central' } }), 200);
    const order = {
      external_id: 'PO-1',
      number: 'OC-2026-0142',
      vendor_external_id: 'V-1',
      issue_date: '2026-11-02',
      currency: 'COP',
      status: 'partially_received',
      lines: [
        {
          external_id: 'PO-1-1',
          product_external_id: 'P-1',
          quantity: 10,
          unit_price: 1234.565,
          pending_quantity: '2.5',
        },
        { external_id: 'PO-1-2', description: 'Transporte', quantity: '1', unit_price: '0.105' },
      ],
    } satisfies ErpPurchaseOrderRecord;
    const response = expectStatus(
      await api.sdk(apiKey).syncPurchaseOrders({
        body: {
          items: [
            order,
            {
              external_id: 'PO-2',
              number: 'OC-2',
              lines: [
                { external_id: 'L', product_external_id: 'P-1', quantity: 1, unit_price: 5, pending_quantity: 2 },
              ],
            },
            {
              external_id: 'PO-3',
              number: 'OC-3',
              issue_date: '2026-02-30',
              lines: [{ external_id: 'L', product_external_id: 'P', quantity: 0, unit_price: -5 }],
            },
            { external_id: 'PO-4', number: 'OC-4', lines: [{ external_id: 'L', quantity: 1, unit_price: 5 }] },
            {
              external_id: 'PO-5',
              number: 'OC-5',
              lines: [
                { external_id: 'L', product_external_id: 'P', quantity: 1, unit_price: 5 },
                { external_id: 'L', product_external_id: 'P', quantity: 1, unit_price: 5 },
              ],
            },
          ],
        },
      }),
      200,
    );
    expect(response.synced).toBe(1);
    expect(response.errors).toEqual([
      { index: 1, external_id: 'PO-2', errors: { 'lines.0.pending_quantity': ['Must not exceed quantity'] } },
      {
        index: 2,
        external_id: 'PO-3',
        errors: {
          issue_date: [expect.any(String)],
          'lines.0.quantity': ['Must be greater than 0'],
          'lines.0.unit_price': ['Must be at least 0'],
        },
      },
      { index: 3, external_id: 'PO-4', errors: { 'lines.0.description': ['Give product_external_id or description'] } },
      { index: 4, external_id: 'PO-5', errors: { 'lines.1.external_id': ['Repeats another line of the order'] } },
    ]);
    const body = expectStatus(
      await api.sdk(apiKey).listPurchaseOrders({ query: { vendor_external_id: 'V-1', status: 'partially_received' } }),
      200,
    );
    expect(body.items).toEqual([
      {
        external_id: 'PO-1',
        number: 'OC-2026-0142',
        vendor_external_id: 'V-1',
        issue_date: '2026-11-02',
        currency: 'COP',
        status: 'partially_received',
        lines: [
          {
            external_id: 'PO-1-1',
            product_external_id: 'P-1',
            description: null,
            quantity: 10,
            unit_price: 1234.57,
            pending_quantity: 2.5,
          },
          {
            external_id: 'PO-1-2',
            product_external_id: null,
            description: 'Transporte',
            quantity: 1,
            unit_price: 0.11,
            pending_quantity: 1,
          },
        ],
        is_active: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const stored = await companyEm(api.orm, company.id).findOneOrFail(ErpPurchaseOrder, { externalId: 'PO-1' });
    expect(stored.lines[0]).toMatchObject({ unitPriceCents: 123457, quantity: '10', pendingQuantity: '2.5' });
    expect(stored.raw).toEqual(order);
  });

  it('purchase orders: one naming a vendor the company has not synced is refused with unknown_vendor, the rest go in', async () => {
    const { company, apiKey } = await makeCompany(api.orm);
    const other = await makeCompany(api.orm);
    const erp = api.sdk(apiKey);
    // An inactive vendor is still a synced one; another company's vendor is not this company's.
    expectStatus(
      await erp.syncVendors({
        body: {
          items: [
            { external_id: 'V-1', name: 'Activo' },
            { external_id: 'V-OLD', name: 'Antiguo', is_active: false },
          ],
        },
      }),
      200,
    );
    expectStatus(await api.sdk(other.apiKey).syncVendors({ body: { external_id: 'V-ELSEWHERE', name: 'Ajeno' } }), 200);
    const line = { external_id: 'L-1', description: 'Tornillos', quantity: 1, unit_price: 5 };
    const response = expectStatus(
      await erp.syncPurchaseOrders({
        body: {
          items: [
            { external_id: 'PO-1', number: 'OC-1', vendor_external_id: 'V-1', lines: [line] },
            { external_id: 'PO-2', number: 'OC-2', vendor_external_id: 'V-9', lines: [line] },
            { external_id: 'PO-3', number: 'OC-3', vendor_external_id: 'V-OLD', lines: [line] },
            { external_id: 'PO-4', number: 'OC-4', lines: [line] },
            { external_id: 'PO-5', number: 'OC-5', vendor_external_id: 'V-ELSEWHERE', lines: [line] },
            { external_id: 'PO-6', number: 'OC-6', vendor_external_id: 'V-9', lines: [{ ...line, quantity: 0 }] },
          ],
        },
      }),
      200,
    );
    expect(response).toEqual({
      synced: 3,
      errors: [
        {
          index: 1,
          external_id: 'PO-2',
          code: 'unknown_vendor',
          errors: { vendor_external_id: [expect.stringContaining('Vendor V-9 is not synced')] },
        },
        {
          index: 4,
          external_id: 'PO-5',
          code: 'unknown_vendor',
          errors: { vendor_external_id: [expect.stringContaining('V-ELSEWHERE')] },
        },
        // A record invalid in itself is reported for that, as before.
        { index: 5, external_id: 'PO-6', errors: { 'lines.0.quantity': ['Must be greater than 0'] } },
      ],
    });
    const stored = await companyEm(api.orm, company.id).find(ErpPurchaseOrder, {}, { orderBy: { externalId: 'asc' } });
    expect(stored.map((order) => order.externalId)).toEqual(['PO-1', 'PO-3', 'PO-4']);

    // Once its vendor is synced, the same order goes in.
    expectStatus(await erp.syncVendors({ body: { external_id: 'V-9', name: 'Nuevo' } }), 200);
    expect(
      expectStatus(
        await erp.syncPurchaseOrders({
          body: { external_id: 'PO-2', number: 'OC-2', vendor_external_id: 'V-9', lines: [line] },
        }),
        200,
      ),
    ).toEqual({ synced: 1, errors: [] });
  });
});

describe('GET /api/v1/erp/{catalog}', () => {
  it('paginates in catalog order and filters by text, activity and update time', async () => {
    const erp = api.sdk((await makeCompany(api.orm)).apiKey);
    await erp.syncProducts({
      body: {
        items: ['C', 'A', 'E', 'B', 'D'].map((letter) => ({
          external_id: `P-${letter}`,
          code: letter,
          name: `Producto ${letter}`,
          is_active: letter !== 'E',
        })),
      },
    });
    const products = async (query: NonNullable<ListProducts['request']['query']>) =>
      expectStatus(await erp.listProducts({ query }), 200);
    const codes = async (query: NonNullable<ListProducts['request']['query']>) =>
      (await products(query)).items.map((item) => item.code);
    expect(await products({ page_size: 2 })).toMatchObject({ total: 5, current_page: 1, page_size: 2, total_pages: 3 });
    expect(await codes({ page_size: 2 })).toEqual(['A', 'B']);
    expect(await codes({ page_size: 2, page: 3 })).toEqual(['E']);
    expect(await codes({ page: 9 })).toEqual([]);
    expect(await codes({ search: 'producto d' })).toEqual(['D']);
    expect((await products({ is_active: 'false' })).total).toBe(1);
    expect((await products({ search: '100%' })).total).toBe(0);

    const before = new Date(Date.now() - 1000).toISOString();
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await products({ updated_since: before })).total).toBe(5);
    expect((await products({ updated_since: later })).total).toBe(0);
    const invalid = expectStatus(
      await erp.listProducts({ query: { page_size: 500, updated_since: 'yesterday' } }),
      400,
    );
    expect(Object.keys(invalid.error.details).sort()).toEqual(['page_size', 'updated_since']);
  });
});

describe('tenancy', () => {
  it('keeps the same external_id of two companies as two records: neither sees nor overwrites the other', async () => {
    const a = await makeCompany(api.orm);
    const b = await makeCompany(api.orm);
    await api.sdk(a.apiKey).syncCostCenters({
      body: {
        items: [
          { external_id: 'CC-1', name: 'De A' },
          { external_id: 'CC-2', name: 'Hijo de A', parent_external_id: 'CC-1' },
        ],
      },
    });
    await api
      .sdk(b.apiKey)
      .syncCostCenters({ body: { external_id: 'CC-1', name: 'De B', parent_external_id: 'CC-2' } });
    const ofA = byId((await costCenters(a.apiKey)).items);
    const ofB = await costCenters(b.apiKey);
    expect(ofA['CC-1']).toMatchObject({ name: 'De A', parent_external_id: null });
    expect(ofB.total).toBe(1);
    // B's CC-1 under CC-2 is no cycle: CC-2 → CC-1 is A's link, not B's.
    expect(ofB.items[0]).toMatchObject({
      name: 'De B',
      parent_external_id: 'CC-2',
      path: ['CC-2', 'CC-1'],
      missing_ancestor_external_id: 'CC-2',
    });
    expect(await companyEm(api.orm, a.company.id).count(ErpCostCenter, {})).toBe(2);
    expect(await companyEm(api.orm, b.company.id).count(ErpCostCenter, {})).toBe(1);
  });
});
