import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const DIAN_INVOICE = join(FIXTURES, 'dian/stenfrank-invoice_unsigned_dian_v2.xml');
const DIAN_CREDIT_NOTE = join(FIXTURES, 'dian/stenfrank-creditnote_signed_dian_v2.xml');
const CFDI_INVOICE = join(FIXTURES, 'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml');
const CFDI_PAYMENT = join(FIXTURES, 'cfdi/satcfdi-pago_he951128469_ingreso_iva16_stamped.xml');
const CFDI_UNSTAMPED = join(FIXTURES, 'cfdi/gobl-credit-note-egreso-unstamped.xml');
const INVOICE_CUFE = 'e633d09279badff1414e7e00f0c9322c01879754c0349e2ea8acd357a474962e17729d393a8bb4094ff3f29dbf0e3af1';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('documents import (operator CLI)', () => {
  it('imports a DIAN invoice and reads it back over the API with its beneficiary, lines, log and XML', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const result = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    expect(result.code).toBe(0);
    expect(result.stdout.errors).toEqual([]);
    expect(result.stdout.documents).toEqual([
      {
        reference: expect.any(String),
        document_number: 'SETP990000008',
        fiscal_reference: INVOICE_CUFE,
        created: true,
      },
    ]);
    const reference = result.stdout.documents[0].reference;

    const body = expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200);
    expect(body).toMatchObject({
      reference,
      document_number: 'SETP990000008',
      type: 'invoice',
      amount: 2023060,
      amount_currency: 'COP',
      approval_status: 'pending',
      payment_status: 'pending',
      is_archived: false,
      fiscal_reference: INVOICE_CUFE,
      tags: [],
      is_admited: false,
      created_by: { source: 'fiscal', user: null },
      notes: [],
      payables: [],
      payments: [],
    });
    expect(body.fiscal_metadata?.final_notes.length).toBeGreaterThan(0);
    expect(body.beneficiary).toMatchObject({ name: 'FACTURADOR DE EJEMPLO', identifier_type: 'NIT', type: 'supplier' });
    expect(body.line_items).toHaveLength(6);
    expect(body.line_items.map((line) => line.position)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(body.logs).toEqual([
      expect.objectContaining({ event: 'document.created', actor: { type: 'system', source: 'fiscal' } }),
    ]);

    const xml = await fetch(body.file_path!.replace(/^https?:\/\/[^/]+/, api.url), { headers: { 'api-key': apiKey } });
    expect(xml.status).toBe(200);
    expect(xml.headers.get('content-type')).toContain('xml');
    expect(await xml.text()).toBe(readFileSync(DIAN_INVOICE, 'utf8'));
  });

  it('starts the document/<reference> workflow with the operator search attributes', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const reference = (await ops('documents', 'import', '--company', company.id, DIAN_INVOICE)).stdout.documents[0]
      .reference;
    const description = await api.client.workflow.getHandle(`document/${reference}`).describe();
    expect(description.type).toBe('documentLifecycle');
    expect(description.searchAttributes).toMatchObject({
      DocumentReference: [reference],
      FiscalReference: [INVOICE_CUFE],
      DocumentNumber: ['SETP990000008'],
      CompanyReference: [company.id],
      ApprovalStatus: ['pending'],
    });
  });

  it('imports the same fiscal reference once: a second import returns the existing document', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const first = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    const [again, concurrent] = await Promise.all([
      ops('documents', 'import', '--company', company.id, DIAN_INVOICE),
      ops('documents', 'import', '--company', company.id, DIAN_INVOICE),
    ]);
    expect(again.stdout.documents[0]).toMatchObject({ reference: first.stdout.documents[0].reference, created: false });
    expect(concurrent.stdout.documents[0].reference).toBe(first.stdout.documents[0].reference);
    expect(await companyEm(api.orm, company.id).count(Document, {})).toBe(1);
  });

  it("names each file's outcome: one invoice given twice and in a copy is one new document, and a file that cannot be read does not stop the others", async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const dir = tempDir('ap-import-outcomes-');
    const copy = join(dir, 'copia-factura.xml');
    writeFileSync(copy, readFileSync(DIAN_INVOICE));
    const result = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE, dir, copy, DIAN_INVOICE);
    expect(result.code).toBe(0);
    expect(result.stdout.documents).toEqual([
      {
        reference: expect.any(String),
        document_number: 'SETP990000008',
        fiscal_reference: INVOICE_CUFE,
        created: true,
      },
    ]);
    const reference = result.stdout.documents[0].reference;
    expect(result.stdout.files).toEqual([
      { file: DIAN_INVOICE, outcome: 'imported', reference, created: expect.any(Boolean) },
      { file: dir, outcome: 'refused', code: 'file_unreadable', message: expect.stringContaining(dir) },
      { file: copy, outcome: 'imported', reference, created: expect.any(Boolean) },
    ]);
    expect(result.stdout.files.filter((file: { created?: boolean }) => file.created === true)).toHaveLength(1);
    expect(result.stderr).toContain('3 files: 1 documents (1 new, 0 already known), 1 not imported');
    expect(await companyEm(api.orm, company.id).count(Document, {})).toBe(1);
  });

  it('reads a file in the encoding its declaration names, and keeps it byte for byte', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const latin1 = Buffer.from(
      readFileSync(DIAN_INVOICE, 'utf8')
        .replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
        .replaceAll('FACTURADOR DE EJEMPLO', 'FACTURACIÓN ÑANDÚ'),
      'latin1',
    );
    const file = join(tempDir('ap-import-latin1-'), 'factura-latin1.xml');
    writeFileSync(file, latin1);
    const result = await ops('documents', 'import', '--company', company.id, file);
    expect(result.code).toBe(0);
    const body = expectStatus(
      await api.sdk(apiKey).getDocument({ params: { reference: result.stdout.documents[0].reference } }),
      200,
    );
    expect(body.beneficiary?.name).toBe('FACTURACIÓN ÑANDÚ');
    const stored = await fetch(body.file_path!.replace(/^https?:\/\/[^/]+/, api.url), {
      headers: { 'api-key': apiKey },
    });
    expect(Buffer.from(await stored.arrayBuffer()).equals(latin1)).toBe(true);
  });

  it('imports a credit note, keeping the invoice it refers to apart from its own CUDE', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const imported = await ops('documents', 'import', '--company', company.id, DIAN_CREDIT_NOTE);
    const document = (
      await api.call('GET', `/public/api/v1/documents/${imported.stdout.documents[0].reference}`, { apiKey })
    ).body;
    expect(document).toMatchObject({ type: 'credit_note', document_number: 'NC3', amount_currency: 'USD' });
    expect(document.fiscal_reference).toMatch(/^[0-9a-f]{96}$/);
  });

  it('imports stamped CFDI for a Mexican company, and applies a payment complement to the invoice it pays', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    const result = await ops('documents', 'import', '--company', company.id, CFDI_INVOICE, CFDI_PAYMENT);
    expect(result.stdout.errors).toEqual([]);
    const [invoice, payment] = result.stdout.documents;
    expect(invoice).toMatchObject({ fiscal_reference: '6d7434a6-e3f2-47ad-9e4c-08849946afa0', created: true });
    expect(payment).toMatchObject({ kind: 'payment_complement', applied_to: [invoice.reference] });
    const document = (await api.call('GET', `/public/api/v1/documents/${invoice.reference}`, { apiKey })).body;
    expect(document).toMatchObject({ amount: 17852.75, amount_currency: 'MXN', type: 'invoice' });
    expect(document.beneficiary.identifier_type).toBe('RFC');
    expect(document.payment_receipt_complements).toEqual([
      expect.objectContaining({ installment_number: 1, outstanding_balance: 0 }),
    ]);
  });

  it('refuses bad files with the file and element named, and writes nothing for them', async () => {
    const { company } = await makeCompany(api.orm, { country: 'MEX' });
    const dir = tempDir('ap-broken-');
    const truncated = join(dir, 'truncated.xml');
    writeFileSync(truncated, readFileSync(CFDI_INVOICE, 'utf8').slice(0, 1500));
    const result = await ops('documents', 'import', '--company', company.id, CFDI_UNSTAMPED, truncated, CFDI_INVOICE);
    expect(result.code).toBe(0);
    expect(result.stdout.documents).toHaveLength(1);
    expect(result.stdout.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          file: CFDI_UNSTAMPED,
          code: 'unstamped_cfdi',
          message: expect.stringContaining('gobl-credit-note-egreso-unstamped.xml'),
        }),
        expect.objectContaining({
          file: truncated,
          code: 'malformed_xml',
          message: expect.stringContaining('truncated.xml'),
        }),
      ]),
    );
    expect(await companyEm(api.orm, company.id).count(Document, {})).toBe(1);
  });

  it('refuses a document of the other country and exits non-zero when nothing was imported', async () => {
    const { company } = await makeCompany(api.orm, { country: 'MEX' });
    const result = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    expect(result.code).toBe(1);
    expect(result.stderr.error).toMatchObject({
      code: 'import_failed',
      message: expect.stringContaining('COL document cannot be imported for a MEX company'),
    });
  });
  it('keeps one beneficiary per supplier: a later file updates its name and details and adds its new contacts', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const dir = tempDir('ap-import-supplier-');
    const source = readFileSync(DIAN_INVOICE, 'utf8');
    // Another invoice of the same supplier (NIT 901210113): its own CUFE and number, a new name and e-mail.
    const variant = (n: number, name: string, email: string) => {
      const file = join(dir, `factura-${n}.xml`);
      const xml = source
        .replaceAll(INVOICE_CUFE, INVOICE_CUFE.slice(0, -2) + String(n).padStart(2, '0'))
        .replaceAll('SETP990000008', `SETP9900001${String(n).padStart(2, '0')}`)
        .replaceAll('FACTURADOR DE EJEMPLO', name)
        // The supplier's contact comes first; the customer's keeps the old address.
        .replace('sd_fistrib_facturaelectronica@dian.gov.co', email);
      writeFileSync(file, xml);
      return file;
    };
    const supplier = async () => {
      const em = companyEm(api.orm, company.id);
      const beneficiaries = await em.execute<
        { id: string; name: string; email: string; phone_number: string; updated_at: string }[]
      >(`select id, name, email, phone_number, updated_at from beneficiaries where company_id = ?`, [company.id]);
      const contacts = await em.execute<{ type: string; value: string }[]>(
        `select type, value from beneficiary_contacts where company_id = ? order by type, value`,
        [company.id],
      );
      const documents = await em.execute<{ beneficiary_id: string }[]>(
        `select beneficiary_id from documents where company_id = ?`,
        [company.id],
      );
      return { beneficiary: beneficiaries[0], count: beneficiaries.length, contacts, documents };
    };

    expect((await ops('documents', 'import', '--company', company.id, DIAN_INVOICE)).stdout.errors).toEqual([]);
    const first = await supplier();
    expect(first.beneficiary).toMatchObject({
      name: 'FACTURADOR DE EJEMPLO',
      email: 'sd_fistrib_facturaelectronica@dian.gov.co',
      phone_number: '9712311',
    });
    expect(first.contacts).toEqual([
      { type: 'email', value: 'sd_fistrib_facturaelectronica@dian.gov.co' },
      { type: 'phone', value: '9712311' },
    ]);

    const renamed = variant(1, 'FACTURADOR DE EJEMPLO S.A.S.', 'cartera@facturador.co');
    expect((await ops('documents', 'import', '--company', company.id, renamed)).stdout.errors).toEqual([]);
    const second = await supplier();
    expect(second.count).toBe(1);
    expect(second.documents).toEqual([
      { beneficiary_id: first.beneficiary!.id },
      { beneficiary_id: first.beneficiary!.id },
    ]);
    expect(second.beneficiary).toMatchObject({
      name: 'FACTURADOR DE EJEMPLO S.A.S.',
      email: 'cartera@facturador.co',
      phone_number: '9712311',
    });
    expect(new Date(second.beneficiary!.updated_at).getTime()).toBeGreaterThan(
      new Date(first.beneficiary!.updated_at).getTime(),
    );
    expect(second.contacts).toEqual([
      { type: 'email', value: 'cartera@facturador.co' },
      { type: 'email', value: 'sd_fistrib_facturaelectronica@dian.gov.co' },
      { type: 'phone', value: '9712311' },
    ]);

    // Nothing new about the supplier: its row is left as it was.
    const same = variant(2, 'FACTURADOR DE EJEMPLO S.A.S.', 'cartera@facturador.co');
    expect((await ops('documents', 'import', '--company', company.id, same)).stdout.errors).toEqual([]);
    const third = await supplier();
    expect(third.documents).toHaveLength(3);
    expect(third.beneficiary!.updated_at).toEqual(second.beneficiary!.updated_at);
    expect(third.contacts).toEqual(second.contacts);
  });
});
