import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';
import { replaceOnce } from '../unit/fiscal/fixtures.ts';

// The fiscal edge cases real files show, end to end: `ops documents import`, then GET /documents/{reference}.

const FIXTURES = new URL('../fixtures/', import.meta.url).pathname;
const DIAN_INVOICE = readFileSync(join(FIXTURES, 'dian/stenfrank-invoice_unsigned_dian_v2.xml'), 'utf8');
const DIAN_CREDIT_NOTE = join(FIXTURES, 'dian/stenfrank-creditnote_signed_dian_v2.xml');
const CFDI_INVOICE = readFileSync(join(FIXTURES, 'cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml'), 'utf8');
const CFDIUTILS_INVOICE = join(FIXTURES, 'cfdi/cfdiutils-cfdi40-valid-ingreso.xml');
const INVOICE_CUFE = 'e633d09279badff1414e7e00f0c9322c01879754c0349e2ea8acd357a474962e17729d393a8bb4094ff3f29dbf0e3af1';

let api: TestApi;
const dir = tempDir('ap-fiscal-edges-');
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

/** Writes an edited fixture where the CLI can read it. */
function written(name: string, xml: string): string {
  const path = join(dir, name);
  writeFileSync(path, xml);
  return path;
}

describe('fiscal edge cases through `ops documents import` and GET /documents/{reference}', () => {
  it('shows how PayableAmount treated PrepaidAmount, and owes only what is left to pay', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    // A subscription that cannot be reached: the payload is recorded with the document, whatever its delivery.
    const hook = [
      '--event',
      'document.created',
      '--url',
      'http://127.0.0.1:9/hooks',
      '--secret',
      's',
      '--retries',
      '0',
    ];
    expect((await ops('webhooks', 'add', '--company', company.id, ...hook)).code).toBe(0);
    // PayableAmount stays the total (2023060.00): the issuer did not subtract the 500000.00 paid in advance.
    const prepaid = written(
      'prepaid.xml',
      replaceOnce(
        DIAN_INVOICE,
        '<cbc:PayableAmount currencyID="COP">',
        '<cbc:PrepaidAmount currencyID="COP">500000.00</cbc:PrepaidAmount><cbc:PayableAmount currencyID="COP">',
      ),
    );
    const imported = await ops('documents', 'import', '--company', company.id, prepaid);
    expect(imported.stdout.errors).toEqual([]);
    const params = { reference: imported.stdout.documents[0].reference };

    const sdk = api.sdk(apiKey);
    const body = expectStatus(await sdk.getDocument({ params }), 200);
    // The amount is the document's total; the payables owe it less what was prepaid.
    expect(body).toMatchObject({
      amount: 2_023_060,
      amount_currency: 'COP',
      prepaid: { amount: 500_000, convention: 'payable_includes_prepaid' },
      exchange_rate: null,
    });
    const [delivery] = await companyEm(api.orm, company.id).find(WebhookDelivery, { subjectId: params.reference });
    expect(delivery?.payload).toMatchObject({
      data: { amount: 202_306_000, prepaid: { amount: 50_000_000, convention: 'payable_includes_prepaid' } },
    });
    const approved = expectStatus(await sdk.approveDocument({ params }), 200);
    expect(approved.payables.map((payable) => [payable.amount, payable.balance])).toEqual([[1_523_060, 1_523_060]]);
  });

  it('shows the exchange rate to the local currency of a dollar DIAN note and a dollar CFDI', async () => {
    const colombian = await makeCompany(api.orm, { country: 'COL' });
    const note = await ops('documents', 'import', '--company', colombian.company.id, DIAN_CREDIT_NOTE);
    const noteBody = expectStatus(
      await api.sdk(colombian.apiKey).getDocument({ params: { reference: note.stdout.documents[0].reference } }),
      200,
    );
    expect(noteBody).toMatchObject({
      amount_currency: 'USD',
      prepaid: null,
      exchange_rate: { rate: 3100, source_currency: 'USD', target_currency: 'COP', date: '2019-06-21' },
    });

    const mexican = await makeCompany(api.orm, { country: 'MEX' });
    const dollars = written(
      'usd.xml',
      replaceOnce(CFDI_INVOICE, 'Moneda="MXN"', 'Moneda="USD" TipoCambio="17.123400"'),
    );
    const cfdi = await ops('documents', 'import', '--company', mexican.company.id, dollars);
    const cfdiBody = expectStatus(
      await api.sdk(mexican.apiKey).getDocument({ params: { reference: cfdi.stdout.documents[0].reference } }),
      200,
    );
    expect(cfdiBody).toMatchObject({
      amount: 17_852.75,
      amount_currency: 'USD',
      exchange_rate: { rate: 17.1234, source_currency: 'USD', target_currency: 'MXN', date: '2020-01-01' },
    });
  });

  it('imports a COP invoice that also states COP → USD, as Odoo writes for one priced in dollars, keeping the rate as information', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    // The real invoice states the identity (COP → COP at 1.00): here it states what one peso is worth in dollars.
    const priced = written(
      'cop-usd.xml',
      replaceOnce(
        replaceOnce(DIAN_INVOICE, '<cbc:TargetCurrencyCode>COP<', '<cbc:TargetCurrencyCode>USD<'),
        '<cbc:CalculationRate>1.00<',
        '<cbc:CalculationRate>0.000243<',
      ),
    );
    // A dollar note without its rate to COP contradicts itself: DIAN requires the rate of a document not in COP.
    const withoutRate = written(
      'usd-sin-tasa.xml',
      replaceOnce(
        readFileSync(DIAN_CREDIT_NOTE, 'utf8'),
        /<cac:PaymentExchangeRate>[\s\S]*?<\/cac:PaymentExchangeRate>/,
        '',
      ),
    );
    const imported = await ops('documents', 'import', '--company', company.id, priced, withoutRate);
    expect(imported.stdout.errors).toEqual([
      {
        file: withoutRate,
        code: 'missing_element',
        element: 'CreditNote/cac:PaymentExchangeRate',
        message: expect.stringContaining('must state its exchange rate to COP'),
      },
    ]);
    const body = expectStatus(
      await api.sdk(apiKey).getDocument({ params: { reference: imported.stdout.documents[0].reference } }),
      200,
    );
    // Not used to convert: the amounts are already in pesos.
    expect(body).toMatchObject({ amount: 2_023_060, amount_currency: 'COP', exchange_rate: null });
    expect(body.fiscal_metadata?.stated_exchange_rate).toEqual({
      rate: 0.000243,
      source_currency: 'COP',
      target_currency: 'USD',
      date: '2019-02-18',
    });
  });

  it('refuses a file at the XML cap from its size, without reading it, and imports the next one', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    // 10 MiB exactly, sparse: the cap itself is refused.
    const huge = written('enorme.xml', '');
    truncateSync(huge, 10 * 1024 * 1024);
    const good = written('buena.xml', DIAN_INVOICE);
    const imported = await ops('documents', 'import', '--company', company.id, huge, good);
    expect(imported.stdout.errors).toEqual([
      expect.objectContaining({
        file: huge,
        code: 'file_too_large',
        message: expect.stringContaining('10 MB XML cap'),
      }),
    ]);
    expect(imported.stdout.documents).toHaveLength(1);
  });

  it('refuses a known CUFE with another number, naming both, and stays idempotent for the same file', async () => {
    const { company } = await makeCompany(api.orm, { country: 'COL' });
    const original = written('original.xml', DIAN_INVOICE);
    const first = await ops('documents', 'import', '--company', company.id, original);
    const reference = first.stdout.documents[0].reference;

    const renumbered = written(
      'renumbered.xml',
      replaceOnce(DIAN_INVOICE, '<cbc:ID>SETP990000008<', '<cbc:ID>SETP990000099<'),
    );
    // With another file beside it, so that the run imports something and lists the refusal among its errors.
    const conflict = await ops('documents', 'import', '--company', company.id, renumbered, DIAN_CREDIT_NOTE);
    expect(conflict.stdout.documents).toHaveLength(1);
    expect(conflict.stdout.errors).toEqual([
      { file: renumbered, code: 'fiscal_reference_conflict', message: expect.any(String) },
    ]);
    const { message } = conflict.stdout.errors[0];
    for (const named of [
      INVOICE_CUFE,
      reference,
      'number SETP990000008',
      'number SETP990000099',
      'issuer NIT 901210113',
      'total 2023060.00 COP',
    ])
      expect(message).toContain(named);

    const again = await ops('documents', 'import', '--company', company.id, original);
    expect(again.stdout.documents).toEqual([expect.objectContaining({ reference, created: false })]);
    expect(await companyEm(api.orm, company.id).count(Document, { fiscalReference: INVOICE_CUFE })).toBe(1);
  });

  it('refuses a known SAT UUID from another issuer', async () => {
    const { company } = await makeCompany(api.orm, { country: 'MEX' });
    await ops('documents', 'import', '--company', company.id, written('cfdi.xml', CFDI_INVOICE));
    const forged = written(
      'forged.xml',
      replaceOnce(CFDI_INVOICE, '<cfdi:Emisor Rfc="H&amp;E951128469"', '<cfdi:Emisor Rfc="XAXX010101000"'),
    );
    const conflict = await ops('documents', 'import', '--company', company.id, forged, CFDIUTILS_INVOICE);
    expect(conflict.stdout.errors).toEqual([
      expect.objectContaining({ file: forged, code: 'fiscal_reference_conflict' }),
    ]);
    expect(conflict.stdout.errors[0].message).toContain('issuer RFC H&E951128469');
    expect(conflict.stdout.errors[0].message).toContain('issuer RFC XAXX010101000');
  });
});
