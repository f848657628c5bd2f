// Fields filled from what the company's ERP already tells the service: a beneficiary's payment terms (its vendor's
// payment term) and a payable's cost center (the registered voucher's payment line), over HTTP.
import { expectStatus, type Client } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountingEntry, type JournalEntry } from '../../db/accounting/accounting-entry.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { seedPayable, seedPayment } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let sdk: Client;
beforeAll(async () => {
  api = await startTestApi();
  let apiKey: string;
  ({ company, apiKey } = await makeCompany(api.orm, { country: 'COL' }));
  sdk = api.sdk(apiKey);
});
afterAll(() => api.close());

describe("a beneficiary's payment_terms", () => {
  it("is the days of its ERP vendor's payment term, wherever the beneficiary is shown", async () => {
    const document = await seedDocument(api.orm, company, { beneficiaryName: 'Plazos Andinos S.A.S.' });
    const supplier = document.beneficiary!;
    const shown = async () => {
      const detail = expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200);
      const listed = expectStatus(
        await sdk.listDocuments({ query: { beneficiary_reference: supplier.id, fields: 'beneficiaries' } }),
        200,
      );
      const beneficiaries = expectStatus(await sdk.listBeneficiaries({ query: { search: 'Plazos Andinos' } }), 200);
      return [
        detail.beneficiary?.payment_terms,
        listed.items[0]?.beneficiary?.payment_terms,
        beneficiaries.items.map((item) => item.payment_terms),
      ];
    };
    expect(await shown()).toEqual([null, null, [null]]);

    const vendor = {
      external_id: 'V-PLAZOS',
      name: 'Plazos Andinos',
      identifier_type: 'NIT',
      identifier_number: supplier.identifierNumber,
      payment_term_external_id: 'PT-45',
    };
    expectStatus(await sdk.syncVendors({ body: vendor }), 200);
    // The vendor names a term the catalog does not hold yet.
    expect(await shown()).toEqual([null, null, [null]]);
    expectStatus(await sdk.syncPaymentTerms({ body: { external_id: 'PT-45', name: '45 días', days: 45 } }), 200);
    expect(await shown()).toEqual([45, 45, [45]]);

    // A term in installments is due when its last installment is.
    const installments = [
      { days: 30, percentage: '40' },
      { days: 90, percentage: '60' },
    ];
    expectStatus(await sdk.syncPaymentTerms({ body: { external_id: 'PT-45', name: '30/90', installments } }), 200);
    expect(await shown()).toEqual([90, 90, [90]]);

    // An inactive vendor says nothing, as it schedules nothing.
    expectStatus(await sdk.syncVendors({ body: { ...vendor, is_active: false } }), 200);
    expect(await shown()).toEqual([null, null, [null]]);
  });

  it("never reads another company's ERP catalogs", async () => {
    const document = await seedDocument(api.orm, company);
    const { apiKey: otherKey } = await makeCompany(api.orm, { country: 'COL' });
    const other = api.sdk(otherKey);
    expectStatus(await other.syncPaymentTerms({ body: { external_id: 'PT-OTRO', name: '60 días', days: 60 } }), 200);
    const vendor = {
      external_id: 'V-OTRO',
      name: 'Otro',
      identifier_type: 'NIT',
      identifier_number: document.beneficiary!.identifierNumber,
      payment_term_external_id: 'PT-OTRO',
    };
    expectStatus(await other.syncVendors({ body: vendor }), 200);
    const detail = expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200);
    expect(detail.beneficiary?.payment_terms).toBeNull();
  });
});

describe("a payable's cost_center", () => {
  /** A document with two installments, a payment of the second, and its posted voucher on its way to the ERP. */
  async function accounted(journal: Partial<JournalEntry>) {
    const document = await seedDocument(api.orm, company);
    const beneficiary = document.beneficiary!;
    await seedPayable(api.orm, company, { beneficiary, document, amountCents: 60_000_00n });
    const second = await seedPayable(api.orm, company, {
      beneficiary,
      document,
      amountCents: 59_000_00n,
      installmentNumber: 2,
    });
    const payment = await seedPayment(api.orm, company, { payable: second, amountCents: 10_000_00n });
    const em = companyEm(api.orm, company.id);
    const line = { book_account_external_id: 'BA-2205', due_date: '2026-11-30', cost_center_external_id: null };
    const entry = em.create(AccountingEntry, {
      company,
      document,
      status: 'posted',
      registrationState: 'registering',
      accountedAt: new Date(),
      journalEntry: {
        status: 'posted',
        document_number: document.documentNumber,
        issue_date: '2026-10-01',
        erp_journal_entry_lines: [],
        payment_lines: [
          { ...line, amount_cents: 60_000_00, quota_number: 1 },
          { ...line, amount_cents: 59_000_00, quota_number: 2 },
        ],
        ...journal,
      },
    });
    await em.flush();
    const register = async () => {
      await companyEm(api.orm, company.id).nativeUpdate(
        AccountingEntry,
        { id: entry.id },
        { registrationState: 'registered' },
      );
    };
    const shown = async () => {
      const detail = expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200);
      const listed = expectStatus(
        await sdk.listDocuments({ query: { beneficiary_reference: beneficiary.id, fields: 'payables' } }),
        200,
      );
      const paid = expectStatus(await sdk.getPayment({ params: { reference: payment.id } }), 200);
      const byInstallment = (payables: { installment_number: number; cost_center: unknown }[]) =>
        payables.map((payable) => [payable.installment_number, payable.cost_center]);
      return {
        detail: byInstallment(detail.payables),
        listed: byInstallment(listed.items[0]!.payables!),
        payment: paid.payable.cost_center,
      };
    };
    return { register, shown };
  }

  it("is the registered voucher's payment line's, with the catalog's code and name, for its installment only", async () => {
    expectStatus(
      await sdk.syncCostCenters({ body: { external_id: 'CC-OPS', code: '1010', name: 'Operaciones' } }),
      200,
    );
    const line = (quota: number, costCenter: string | null) => ({
      book_account_external_id: 'BA-2205',
      amount_cents: 1,
      due_date: '2026-11-30',
      quota_number: quota,
      cost_center_external_id: costCenter,
    });
    const { register, shown } = await accounted({ payment_lines: [line(1, null), line(2, 'CC-OPS')] });
    // Not before the ERP registered the voucher.
    expect(await shown()).toMatchObject({
      detail: [
        [1, null],
        [2, null],
      ],
      payment: null,
    });
    await register();
    const costCenter = { external_id: 'CC-OPS', code: '1010', name: 'Operaciones' };
    expect(await shown()).toMatchObject({
      detail: [
        [1, null],
        [2, costCenter],
      ],
      listed: [
        [1, null],
        [2, costCenter],
      ],
      payment: costCenter,
    });
  });

  it("falls back on the voucher's own cost center, and names one the catalog lacks by its id alone", async () => {
    const { register, shown } = await accounted({ cost_center_external_id: 'CC-SIN-CATALOGO' });
    await register();
    const costCenter = { external_id: 'CC-SIN-CATALOGO', code: null, name: null };
    expect(await shown()).toMatchObject({
      detail: [
        [1, costCenter],
        [2, costCenter],
      ],
      payment: costCenter,
    });
  });

  it('is null when the registered voucher names none', async () => {
    const { register, shown } = await accounted({});
    await register();
    expect(await shown()).toMatchObject({
      detail: [
        [1, null],
        [2, null],
      ],
      payment: null,
    });
  });
});
