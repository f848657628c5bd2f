import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { localFileStorage } from '../../platform/storage/file-storage.ts';
import { FILES_ROUTE } from '../../api/routes/files.ts';
import { PUBLIC_PREFIX, ROUTE_GROUPS } from '../../api/routes/index.ts';
import { bankReference } from '../../db/banks/bank-catalog.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import type { Document } from '../../db/documents/document.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { createApiKey } from '../../db/companies/company.repository.ts';
import { ReceptionEvent } from '../../db/reception-events/reception-event.entity.ts';
import { WorkflowStep } from '../../db/workflow-steps/workflow-step.entity.ts';
import { seedDocument, setFlow, startLifecycle } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { seedBankAccount, seedBeneficiary, seedPayable, seedPayment } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

interface Probe {
  method: string;
  path: string;
  body?: unknown;
  /** The ERP API takes the key as `Authorization: ApiKey`. */
  erp?: boolean;
}

interface Owned {
  company: Company;
  document: Document;
  stepId: string;
  paymentId: string;
  beneficiaryId: string;
  bankAccountId: string;
  /** A stored file of the document (a note's attachment). */
  fileKey: string;
}

let api: TestApi;
let owner: Owned;
let intruder: { apiKey: string };
const members = [{ email: 'ana@example.co', name: 'Ana' }];

/**
 * For every route that takes a reference of a company's resource: how company B tries to reach company A's.
 * A route missing here fails the test, so a new route cannot escape the check.
 */
const PROBES: Record<string, (a: Owned) => Probe[]> = {
  'GET /public/api/v1/documents/:reference': (a) => [
    { method: 'GET', path: `/public/api/v1/documents/${a.document.id}` },
  ],
  'POST /public/api/v1/documents/:reference/approve': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/approve` },
    { method: 'POST', path: `/public/api/v1/documents/${a.document.fiscalReference}/approve` },
  ],
  'POST /public/api/v1/documents/:reference/archive': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/archive` },
  ],
  'POST /public/api/v1/documents/:reference/unarchive': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/unarchive` },
  ],
  'POST /public/api/v1/payments/:reference/archive': (a) => [
    { method: 'POST', path: `/public/api/v1/payments/${a.paymentId}/archive` },
  ],
  'POST /public/api/v1/payments/:reference/unarchive': (a) => [
    { method: 'POST', path: `/public/api/v1/payments/${a.paymentId}/unarchive` },
  ],
  'POST /public/api/v1/documents/:reference/acknowledge': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/acknowledge` },
  ],
  'POST /public/api/v1/documents/:reference/accounting/retry': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/accounting/retry` },
  ],
  'POST /public/api/v1/documents/:reference/tags': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/tags`, body: { tags_text: ['intruso'] } },
  ],
  'POST /public/api/v1/documents/:reference/notes': (a) => [
    { method: 'POST', path: `/public/api/v1/documents/${a.document.id}/notes`, body: { comment: 'intruso' } },
  ],
  'GET /public/api/v1/workflow-steps/current': (a) => [
    { method: 'GET', path: `/public/api/v1/workflow-steps/current?entity_reference=${a.document.id}` },
  ],
  'POST /public/api/v1/workflow-steps/:reference/complete': (a) => [
    {
      method: 'POST',
      path: `/public/api/v1/workflow-steps/${a.stepId}/complete`,
      body: { decision: 'approve', acting_user_email: 'ana@example.co' },
    },
  ],
  'GET /public/api/v1/payments/:reference': (a) => [{ method: 'GET', path: `/public/api/v1/payments/${a.paymentId}` }],
  'GET /public/api/v1/beneficiaries/:reference': (a) => [
    { method: 'GET', path: `/public/api/v1/beneficiaries/${a.beneficiaryId}` },
  ],
  'POST /public/api/v1/beneficiaries/:reference/bank-accounts': (a) => [
    {
      method: 'POST',
      path: `/public/api/v1/beneficiaries/${a.beneficiaryId}/bank-accounts`,
      body: { bank_reference: bankReference('COL', '1007'), account_number: '987654321', account_type: 'savings' },
    },
  ],
  'PUT /public/api/v1/beneficiaries/:reference/bank-accounts/:bank_account_reference': (a) => [
    {
      method: 'PUT',
      path: `/public/api/v1/beneficiaries/${a.beneficiaryId}/bank-accounts/${a.bankAccountId}`,
      body: { account_type: 'checking' },
    },
  ],
  'POST /public/api/v1/events/single': (a) => [
    {
      method: 'POST',
      path: '/public/api/v1/events/single',
      body: { document_fiscal_reference: a.document.fiscalReference, event_type: '030' },
    },
  ],
  [`GET ${PUBLIC_PREFIX}${FILES_ROUTE.path}`]: (a) => [{ method: 'GET', path: `${PUBLIC_PREFIX}/files/${a.fileKey}` }],
  'PUT /api/v1/erp/advances/:reference': (a) => [
    { method: 'PUT', path: `/api/v1/erp/advances/${a.paymentId}`, body: { outstanding_amount_cents: 0 }, erp: true },
  ],
  'POST /public/api/v1/events/batch': (a) => [
    {
      method: 'POST',
      path: '/public/api/v1/events/batch',
      body: { documents_fiscal_reference: [a.document.fiscalReference], events_type: ['030'] },
    },
  ],
};

/** Routes with no company resource in their path or body: shared reference data, lists, or the caller's own company. */
const NOT_BY_REFERENCE = new Set([
  'GET /public/api/v1/banks/:reference', // banks are shared reference data of a country
]);

beforeAll(async () => {
  api = await startTestApi();
  const a = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members });
  await setFlow(api.orm, a.company, {
    steps: [{ action: 'document.approval', kind: 'approval', assignees: ['ana@example.co'] }],
  });
  const document = await seedDocument(api.orm, a.company, {
    fiscalReference: `${'d'.repeat(88)}${Date.now().toString(16).slice(-8)}`,
  });
  await startLifecycle({ client: api.client, taskQueue: inject('taskQueue') }, document);
  // The lifecycle opens its approval step shortly.
  const step = await vi.waitFor(
    async () => {
      const opened = await companyEm(api.orm, a.company.id).findOne(WorkflowStep, { document });
      if (!opened) throw new Error('the approval step is not open yet');
      return opened;
    },
    { timeout: 30_000, interval: 100 },
  );
  const beneficiary = await seedBeneficiary(api.orm, a.company, { name: 'Proveedor A' });
  const payable = await seedPayable(api.orm, a.company, { beneficiary, document, amountCents: 10_000_00n });
  const payment = await seedPayment(api.orm, a.company, { payable, amountCents: 1_000_00n });
  const account = await seedBankAccount(api.orm, a.company, beneficiary, {
    bankCode: '1007',
    accountNumber: '123456789',
  });
  const fileKey = `${a.company.id}/documents/${document.id}/notes/soporte.pdf`;
  await localFileStorage(inject('storageDir')).put(fileKey, Buffer.from('%PDF-1.4\n%%EOF\n'), 'application/pdf');
  owner = {
    company: a.company,
    document,
    stepId: step.id,
    paymentId: payment.id,
    beneficiaryId: beneficiary.id,
    bankAccountId: account.id,
    fileKey,
  };
  const b = await makeCompany(api.orm, { country: 'COL', features: ['workflow_api'], members });
  intruder = { apiKey: b.apiKey };
});
afterAll(() => api.close());

describe('tenant isolation over the route table', () => {
  const routes = [
    ...ROUTE_GROUPS.flatMap((group) =>
      group.routes.map((route) => ({ key: `${route.method.toUpperCase()} ${group.prefix}${route.path}`, route })),
    ),
    // Files are served outside the route table; their key is a company's reference too.
    { key: `GET ${PUBLIC_PREFIX}${FILES_ROUTE.path}`, route: { auth: 'api-key', params: true } },
  ];

  it('covers every route that takes a reference (a new one must be added here)', () => {
    const takingReferences = routes.filter(
      ({ key, route }) => route.params || (route.auth === 'api-key' && /events|workflow-steps\/current/.test(key)),
    );
    const uncovered = takingReferences
      .map(({ key }) => key)
      .filter((key) => !(key in PROBES) && !NOT_BY_REFERENCE.has(key));
    expect(uncovered).toEqual([]);
  });

  it("answers 404 to company B for every reference of company A's, and changes nothing", async () => {
    const em = companyEm(api.orm, owner.company.id);
    const logsBefore = await em.count(ActivityLog, { document: owner.document });
    for (const [key, probes] of Object.entries(PROBES)) {
      for (const probe of probes(owner)) {
        const response = await api.call(probe.method, probe.path, {
          ...(probe.erp ? { headers: { authorization: `ApiKey ${intruder.apiKey}` } } : { apiKey: intruder.apiKey }),
          ...(probe.body ? { body: probe.body } : {}),
        });
        expect(response.status, `${key} ${probe.path}`).toBe(404);
      }
    }
    const fresh = companyEm(api.orm, owner.company.id);
    expect(await fresh.count(ActivityLog, { document: owner.document })).toBe(logsBefore);
    expect(await fresh.count(ReceptionEvent, { document: owner.document })).toBe(0);
    expect(await fresh.count(BeneficiaryBankAccount, { beneficiary: owner.beneficiaryId })).toBe(1);
    const document = (
      await api.call('GET', `/public/api/v1/documents/${owner.document.id}`, { apiKey: await makeKey(owner.company) })
    ).body;
    expect(document).toMatchObject({ approval_status: 'in_review', tags: [], notes: [] });
  });

  it('refuses a scoped key of company A on its files, as on its documents, and serves them to an unscoped one', async () => {
    const path = `${PUBLIC_PREFIX}/files/${owner.fileKey}`;
    const scoped = (
      await createApiKey(systemEm(api.orm), owner.company, ['payments:read', 'payments:write', 'beneficiaries:read'])
    ).plaintext;
    const refused = await api.call('GET', path, { apiKey: scoped });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      code: 'insufficient_scope',
      message: 'This endpoint needs an API key without scopes',
      required_scope: null,
    });
    expect((await api.call('GET', path, { apiKey: await makeKey(owner.company) })).status).toBe(200);
  });

  it("never lists company A's rows to company B", async () => {
    for (const path of [
      '/public/api/v1/documents?page_size=100',
      '/public/api/v1/payments?page_size=100',
      '/public/api/v1/beneficiaries?page_size=100',
    ]) {
      const response = await api.call('GET', path, { apiKey: intruder.apiKey });
      expect(response.status, path).toBe(200);
      expect(JSON.stringify(response.body), path).not.toMatch(
        new RegExp(`${owner.document.id}|${owner.paymentId}|${owner.beneficiaryId}`),
      );
    }
  });
});

async function makeKey(company: Company): Promise<string> {
  return (await createApiKey(systemEm(api.orm), company, [])).plaintext;
}
