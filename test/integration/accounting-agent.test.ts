// The accounting agent, end to end over HTTP against the ERP receiver simulator: with a Colombian PUC chart whose
// first debit account by code is Caja general, a line nothing maps is never put there: the document asks a person
// through a `book_account` step, the voucher goes out once decided with no operator command, and the supplier's next
// invoice is accounted by itself on what was learnt. Orders are crossed within their pending quantity and price; a
// line beyond its order waits for a person. A Mexican CFDI's IVA and ISR retention land on their tax accounts.
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus, type WorkflowStep } from '@accounts-payable/client';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { ErpPurchaseOrder } from '../../db/erp/purchase-order.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { setFlow } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { writeDianInvoice, type DianInvoiceSpec } from '../helpers/dian-invoices.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const SECRET = 'whsec-test-0123456789';
const ANA = { email: 'ana@example.co', name: 'Ana Gómez' };

/** A PUC chart as a Colombian ERP syncs it: Caja general is the first debit account by code. */
const PUC = [
  { external_id: 'puc-110505', code: '110505', name: 'Caja general', nature: 'debit' },
  { external_id: 'puc-143505', code: '143505', name: 'Mercancías no fabricadas por la empresa', nature: 'debit' },
  { external_id: 'puc-220505', code: '220505', name: 'Proveedores nacionales', nature: 'credit' },
  { external_id: 'puc-236540', code: '236540', name: 'Retención en la fuente: compras', nature: 'credit' },
  { external_id: 'puc-240802', code: '240802', name: 'IVA descontable', nature: 'debit' },
  { external_id: 'puc-513505', code: '513505', name: 'Aseo y vigilancia', nature: 'debit' },
  { external_id: 'puc-519595', code: '519595', name: 'Diversos', nature: 'debit' },
  { external_id: 'puc-510000', code: '510000', name: 'Gastos antiguos', nature: 'debit', is_active: false },
];

let api: TestApi;
let receiver: ErpReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(async () => {
  // Every webhook the receiver got has the shape the OpenAPI document publishes.
  expect(expectPublishedShapes(receiver.received)).toBeGreaterThan(0);
  await receiver.stop();
  await api.close();
});

const erpSync = async (apiKey: string, catalog: string, items: unknown[]) => {
  const answer = await api.call('POST', `/api/v1/erp/${catalog}`, {
    headers: { authorization: `ApiKey ${apiKey}` },
    body: { items },
  });
  expect(answer.body, catalog).toMatchObject({ synced: items.length, errors: [] });
};

/** A Colombian company with the PUC chart and its IVA, receiving vouchers, whose flow approves then accounts. */
async function colombianCompany(): Promise<{ company: Company; apiKey: string }> {
  const made = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members: [ANA] });
  await setFlow(api.orm, made.company, {
    steps: [
      { action: 'document.approval', kind: 'approval', assignees: [ANA.email] },
      { action: 'document.accounting', actionable: false },
    ],
  });
  await erpSync(made.apiKey, 'book-accounts', PUC);
  await erpSync(made.apiKey, 'taxes', [
    {
      external_id: 'tax-iva19',
      code: '01',
      name: 'IVA 19%',
      type: 'iva',
      rate: '0.19',
      book_account_external_id: 'puc-240802',
    },
  ]);
  await subscribeWebhook(made.company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
  return made;
}

async function importInvoice(company: Company, spec: Omit<DianInvoiceSpec, 'documentNumber'>) {
  const documentNumber = `AGT${randomUUID().slice(0, 8).toUpperCase()}`;
  const { path } = writeDianInvoice({ documentNumber, ...spec });
  const imported = await ops('documents', 'import', '--company', company.id, path);
  expect(imported.code, JSON.stringify(imported.stdout)).toBe(0);
  return imported.stdout.documents[0].reference as string;
}

const currentStep = async (apiKey: string, reference: string) => {
  const answer = await api.sdk(apiKey).getCurrentWorkflowStep({ query: { entity_reference: reference } });
  return answer.status === 200 ? answer.body.step : null;
};

async function stepWith(apiKey: string, reference: string, action: string): Promise<WorkflowStep> {
  let step: WorkflowStep | null = null;
  await expect
    .poll(async () => (step = await currentStep(apiKey, reference))?.action, { timeout: 30_000, interval: 100 })
    .toBe(action);
  return step!;
}

const decide = (apiKey: string, step: WorkflowStep, value: string) =>
  api.sdk(apiKey).completeWorkflowStep({
    params: { reference: step.reference },
    body: { decision: value, acting_user_email: ANA.email },
  });

const accountingOf = async (apiKey: string, reference: string) =>
  expectStatus(await api.sdk(apiKey).getDocument({ params: { reference } }), 200).accounting;

async function registeredJournal(apiKey: string, reference: string) {
  await expect
    .poll(async () => (await accountingOf(apiKey, reference))?.registration_state, { timeout: 30_000 })
    .toBe('registered');
  const hooks = receiver.received.filter(
    (request) => request.event === 'document.accounted' && (request.json as any).data.reference === reference,
  );
  expect(hooks).toHaveLength(1);
  const journal = (hooks[0]!.json as any).data.accounting_entry.journal_entry;
  const lines = journal.erp_journal_entry_lines as any[];
  const debits = lines.reduce((sum, line) => sum + (line.debit_cents ?? 0), 0);
  const credits =
    lines.reduce((sum, line) => sum + (line.credit_cents ?? 0), 0) +
    (journal.payment_lines as any[]).reduce((sum, line) => sum + line.amount_cents, 0);
  expect(debits).toBe(credits);
  return journal;
}

const SUPPLIER = { name: 'Vigilancia del Valle SAS', nit: '901234567' };
const GUARD_SERVICE = { description: 'Servicio de vigilancia noviembre', quantity: 1, unitPriceCents: 2_500_000_00n };

describe('a line no evidence places', () => {
  it('asks through a book_account step, goes out once decided, and teaches the supplier’s next invoice', async () => {
    const { company, apiKey } = await colombianCompany();
    const first = await importInvoice(company, { supplier: SUPPLIER, lines: [GUARD_SERVICE], ivaPercent: 19 });
    expectStatus(await decide(apiKey, await stepWith(apiKey, first, 'document.approval'), 'approve'), 200);

    const question = await stepWith(apiKey, first, 'document.book_account');
    expect(question).toMatchObject({
      status: 'pending',
      actionable: true,
      decision: { kind: 'classification', field_name: 'book_account', multiple: false, options_complete: true },
      assignees: [{ email: ANA.email, acted: false }],
    });
    expect(question.entity.concept).toContain('Servicio de vigilancia noviembre');
    // Only active debit accounts answer it.
    expect(question.decision!.options.map((option) => option.value).sort()).toEqual(
      ['puc-110505', 'puc-143505', 'puc-240802', 'puc-513505', 'puc-519595'].sort(),
    );
    expect(await accountingOf(apiKey, first)).toMatchObject({ registration_state: 'awaiting_classification' });
    expect(receiver.registered.get(first)).toBeUndefined();

    // A credit account, an inactive one and an unknown one are refused; the step stays pending.
    for (const wrong of ['puc-220505', 'puc-510000', 'puc-999999'])
      expect(expectStatus(await decide(apiKey, question, wrong), 422).code).toBe('invalid_decision');
    expect((await currentStep(apiKey, first))?.reference).toBe(question.reference);

    expectStatus(await decide(apiKey, question, 'puc-513505'), 200);
    const journal = await registeredJournal(apiKey, first);
    const accounts = (journal.erp_journal_entry_lines as any[]).map((line) => line.book_account_external_id);
    expect(accounts).not.toContain('puc-110505');
    expect(journal.erp_journal_entry_lines).toEqual([
      expect.objectContaining({
        source: 'agent',
        description: GUARD_SERVICE.description,
        book_account_external_id: 'puc-513505',
        debit_cents: 2_500_000_00,
        metadata: expect.objectContaining({ account_source: 'classification', decided_by: ANA.email }),
      }),
      expect.objectContaining({
        book_account_external_id: 'puc-240802',
        debit_cents: 475_000_00,
        metadata: expect.objectContaining({ account_source: 'tax', tax_external_id: 'tax-iva19' }),
      }),
    ]);
    expect(journal.payment_lines).toEqual([expect.objectContaining({ book_account_external_id: 'puc-220505' })]);
    // The ERP registered it: the flow's accounting step resolves and the flow ends.
    await expect.poll(() => currentStep(apiKey, first), { timeout: 30_000 }).toBeNull();

    // The supplier's next invoice, approved through POST /approve, goes out by itself on what was learnt.
    const second = await importInvoice(company, {
      supplier: SUPPLIER,
      lines: [{ ...GUARD_SERVICE, description: 'Servicio de  VIGILANCIA noviembre' }],
      ivaPercent: 19,
    });
    expectStatus(await api.sdk(apiKey).approveDocument({ params: { reference: second }, body: {} }), 200);
    const learnt = await registeredJournal(apiKey, second);
    expect(learnt.erp_journal_entry_lines[0]).toMatchObject({
      book_account_external_id: 'puc-513505',
      metadata: { account_source: 'company_rule', rule: { match: 'description', source: 'classification' } },
    });
  });
});

describe('who starts accounting', () => {
  it('nobody, once the operator turns it off: the approval sends nothing, and an operator’s run still accounts', async () => {
    const { company, apiKey } = await colombianCompany();
    expect((await ops('accounting', 'settings', '--company', company.id, '--automatic', 'off')).stdout).toMatchObject({
      automatic: false,
    });
    const reference = await importInvoice(company, {
      supplier: SUPPLIER,
      lines: [{ ...GUARD_SERVICE, code: 'VIG-1' }],
      ivaPercent: 19,
    });
    expectStatus(await decide(apiKey, await stepWith(apiKey, reference, 'document.approval'), 'approve'), 200);
    // The flow goes on to its accounting step, which waits on the ERP: nothing accounted the document.
    await stepWith(apiKey, reference, 'document.accounting');
    expect(await accountingOf(apiKey, reference)).toBeNull();

    // The operator's run finds no evidence either: it asks through the document's flow, as the lifecycle would.
    const accounted = await ops('documents', 'account', '--document', reference);
    expect(accounted.stdout.accounting_entry).toMatchObject({ registration_state: 'awaiting_classification' });
    const question = await stepWith(apiKey, reference, 'document.book_account');
    expectStatus(await decide(apiKey, question, 'puc-519595'), 200);
    const journal = await registeredJournal(apiKey, reference);
    expect(journal.erp_journal_entry_lines[0]).toMatchObject({ book_account_external_id: 'puc-519595' });
    await expect.poll(() => currentStep(apiKey, reference), { timeout: 30_000 }).toBeNull();
  });
});

describe('purchase-order crossing', () => {
  async function companyWithOrder() {
    const made = await colombianCompany();
    await erpSync(made.apiKey, 'vendors', [
      { external_id: 'v-ferre', name: 'Ferretería Central', identifier_type: 'NIT', identifier_number: '900765432' },
    ]);
    await erpSync(made.apiKey, 'products', [
      { external_id: 'p-tornillo', code: 'TOR-3', name: 'Tornillo 3"', book_account_external_id: 'puc-143505' },
    ]);
    await erpSync(made.apiKey, 'purchase-orders', [
      {
        external_id: 'po-902',
        number: 'OC-2026-0902',
        vendor_external_id: 'v-ferre',
        status: 'open',
        lines: [{ external_id: 'po-902-1', product_external_id: 'p-tornillo', quantity: '10', unit_price: '1000.00' }],
      },
    ]);
    return made;
  }
  const FERRE = { name: 'Ferretería Central SAS', nit: '900765432' };
  const screws = (quantity: number, unitPriceCents = 1_000_00n) => ({
    supplier: FERRE,
    purchaseOrder: 'OC-2026-0902',
    lines: [{ description: 'Tornillo 3 pulgadas', code: 'TOR-3', quantity, unitPriceCents }],
    ivaPercent: 19,
  });
  const pendingOnOrder = async (company: Company) =>
    (await companyEm(api.orm, company.id).findOneOrFail(ErpPurchaseOrder, { externalId: 'po-902' }, { refresh: true }))
      .lines[0]!.pendingQuantity;

  it('crosses a line within its order, and lowers what is pending once the ERP registers it', async () => {
    const { company, apiKey } = await companyWithOrder();
    const reference = await importInvoice(company, screws(4));
    expectStatus(await api.sdk(apiKey).approveDocument({ params: { reference }, body: {} }), 200);
    const journal = await registeredJournal(apiKey, reference);
    expect(journal.erp_journal_entry_lines[0]).toMatchObject({
      source: 'purchase_order',
      purchase_order_line_external_id: 'po-902-1',
      product_external_id: 'p-tornillo',
      book_account_external_id: 'puc-143505',
      quantity: 4,
    });
    expect(await accountingOf(apiKey, reference)).toMatchObject({ registration_state: 'registered' });
    await expect.poll(() => pendingOnOrder(company)).toMatch(/^6(\.0*)?$/);
  });

  it('holds a line beyond its order for a person: approved, it goes as a direct purchase; rejected, it is held', async () => {
    const { company, apiKey } = await companyWithOrder();
    const beyond = await importInvoice(company, screws(60));
    expectStatus(await api.sdk(apiKey).approveDocument({ params: { reference: beyond }, body: {} }), 200);
    const review = await stepWith(apiKey, beyond, 'document.purchase_order_review');
    expect(review.entity.concept).toContain('60 units invoiced, 10 pending on OC-2026-0902 line 1');
    expect(review.decision).toMatchObject({ kind: 'classification', field_name: 'purchase_order_review' });
    expect(await accountingOf(apiKey, beyond)).toMatchObject({ registration_state: 'awaiting_order_review' });
    expect(receiver.registered.get(beyond)).toBeUndefined();
    expectStatus(await decide(apiKey, review, 'approve'), 200);
    const direct = await registeredJournal(apiKey, beyond);
    expect(direct.erp_journal_entry_lines[0]).toMatchObject({
      source: 'agent',
      purchase_order_line_external_id: null,
      book_account_external_id: 'puc-143505',
      metadata: expect.objectContaining({ account_source: 'product' }),
    });
    expect(await pendingOnOrder(company)).toMatch(/^10(\.0*)?$/);

    const pricier = await importInvoice(company, screws(2, 1_250_00n));
    expectStatus(await api.sdk(apiKey).approveDocument({ params: { reference: pricier }, body: {} }), 200);
    const priceReview = await stepWith(apiKey, pricier, 'document.purchase_order_review');
    expect(priceReview.entity.concept).toContain('unit price 1,250.00 invoiced, 1,000.00 on OC-2026-0902 line 1');
    expectStatus(await decide(apiKey, priceReview, 'reject'), 200);
    await expect
      .poll(async () => (await accountingOf(apiKey, pricier))?.registration_state, { timeout: 30_000 })
      .toBe('held');
    expect((await accountingOf(apiKey, pricier))?.failure).toMatchObject({
      code: 'purchase_order_mismatch',
      message: expect.stringContaining('unit price 1,250.00'),
    });
    expect(receiver.registered.get(pricier)).toBeUndefined();
  });
});

describe('a Mexican CFDI', () => {
  /** The SAT fixture (a rent), with the ISR a company withholds from a rent paid to an individual. */
  function cfdiWithIsrRetention(): string {
    const xml = readFileSync(
      new URL('../fixtures/cfdi/satcfdi-he951128469_ingreso_iva16_stamped.xml', import.meta.url),
      'utf8',
    );
    const withheld = xml
      .replace(
        '</cfdi:Traslados>',
        '</cfdi:Traslados><cfdi:Retenciones><cfdi:Retencion Base="15390.30" Impuesto="001" TipoFactor="Tasa" TasaOCuota="0.100000" Importe="1539.03"/></cfdi:Retenciones>',
      )
      .replace(
        '<cfdi:Impuestos TotalImpuestosTrasladados="2462.45">',
        '<cfdi:Impuestos TotalImpuestosRetenidos="1539.03" TotalImpuestosTrasladados="2462.45"><cfdi:Retenciones><cfdi:Retencion Impuesto="001" Importe="1539.03"/></cfdi:Retenciones>',
      )
      .replace('Total="17852.75"', 'Total="16313.72"')
      .replace(/(<tfd:TimbreFiscalDigital\b[^>]*\bUUID=")[^"]*"/, `$1${randomUUID().toUpperCase()}"`);
    const path = join(tempDir('ap-cfdi-isr-'), 'rent.xml');
    writeFileSync(path, withheld);
    return path;
  }

  it('lands its IVA 16% and its ISR retention on their tax accounts, the rent on the vendor’s default account', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    await erpSync(apiKey, 'book-accounts', [
      { external_id: 'sat-118', code: '118.01', name: 'IVA acreditable pagado', nature: 'debit' },
      { external_id: 'sat-201', code: '201.01', name: 'Proveedores nacionales', nature: 'credit' },
      { external_id: 'sat-216', code: '216.03', name: 'ISR retenido por arrendamiento', nature: 'credit' },
      { external_id: 'sat-603', code: '603.01', name: 'Arrendamiento', nature: 'debit' },
      { external_id: 'sat-101', code: '101.01', name: 'Caja', nature: 'debit' },
    ]);
    await erpSync(apiKey, 'taxes', [
      { external_id: 'iva16', name: 'IVA 16%', type: 'iva', rate: '0.16', book_account_external_id: 'sat-118' },
      {
        external_id: 'isr10',
        name: 'ISR retenido 10%',
        type: 'isr',
        rate: '0.10',
        is_withholding: true,
        book_account_external_id: 'sat-216',
      },
      // Same rate, not a withholding: never matched with the ISR retention.
      { external_id: 'ieps10', name: 'IEPS 10%', type: 'ieps', rate: '0.10', book_account_external_id: 'sat-101' },
    ]);
    await erpSync(apiKey, 'vendors', [
      {
        external_id: 'v-herreria',
        name: 'Herrería & Eléctricos',
        identifier_type: 'RFC',
        identifier_number: 'H&E951128469',
        book_account_external_id: 'sat-603',
      },
    ]);
    await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
    const imported = await ops('documents', 'import', '--company', company.id, cfdiWithIsrRetention());
    expect(imported.code, JSON.stringify(imported.stdout)).toBe(0);
    const reference = imported.stdout.documents[0].reference as string;
    expectStatus(await api.sdk(apiKey).approveDocument({ params: { reference }, body: {} }), 200);

    const journal = await registeredJournal(apiKey, reference);
    expect(
      (journal.erp_journal_entry_lines as any[]).map((line) => [
        line.book_account_external_id,
        line.debit_cents,
        line.credit_cents,
        line.metadata.account_source,
      ]),
    ).toEqual([
      ['sat-603', 15_390_30, null, 'vendor_default'],
      ['sat-118', 2_462_45, null, 'tax'],
      ['sat-216', null, 1_539_03, 'tax'],
    ]);
    expect(journal.payment_lines).toEqual([
      expect.objectContaining({ book_account_external_id: 'sat-201', amount_cents: 16_313_72 }),
    ]);
  });
});
