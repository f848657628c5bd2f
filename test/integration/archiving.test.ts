// Archiving documents and payments over HTTP: the flag, the default lists that leave archived ones out, idempotent
// repeats, the document's log, scopes, Idempotency-Key replays and other companies' references.
import { expectStatus, type Client } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../db/companies/company.entity.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { seedBeneficiary, seedPayable, seedPayment } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
let company: Company;
let sdk: Client;
let scopedKey: (scopes: ('payments:read' | 'payments:write' | 'beneficiaries:read')[]) => Promise<string>;
beforeAll(async () => {
  api = await startTestApi();
  let apiKey: string;
  ({ company, apiKey, scopedKey } = await makeCompany(api.orm, { country: 'COL' }));
  sdk = api.sdk(apiKey);
});
afterAll(() => api.close());

const UNKNOWN = '01a1fd1b-78d3-7a06-918e-b55b593118bf';

/** The log entries of a document that record an archiving change. */
const archivingLogs = (logs: { event: string; metadata: Record<string, unknown> }[]) =>
  logs.filter((log) => log.metadata.change === 'archived' || log.metadata.change === 'unarchived');

async function documentPage(query: { is_archived?: 'true' | 'false'; beneficiary_reference: string }) {
  const { items } = expectStatus(await sdk.listDocuments({ query }), 200);
  return items.map((item) => [item.reference, item.is_archived]);
}

describe('POST /documents/{reference}/archive and /unarchive', () => {
  it('archives once, leaves the document out of the default list, and unarchives it back', async () => {
    const document = await seedDocument(api.orm, company);
    const kept = await seedDocument(api.orm, company);
    const params = { reference: document.id };
    const before = expectStatus(await sdk.getDocument({ params }), 200);
    expect(before.is_archived).toBe(false);

    const archived = expectStatus(await sdk.archiveDocument({ params }), 200);
    expect(archived).toMatchObject({ reference: document.id, is_archived: true, approval_status: 'pending' });
    expect(archived.updated_at > before.updated_at).toBe(true);
    expect(archivingLogs(archived.logs)).toEqual([
      {
        event: 'document.updated',
        created_at: expect.any(String),
        actor: { type: 'system', source: 'integration', name: expect.stringMatching(/^API key apk_/) },
        metadata: { change: 'archived' },
      },
    ]);
    // Archiving an archived document answers it unchanged, and logs nothing more.
    const again = expectStatus(await sdk.archiveDocument({ params }), 200);
    expect(again).toStrictEqual(archived);
    expect(expectStatus(await sdk.getDocument({ params }), 200)).toStrictEqual(archived);

    // Each seeded document has a beneficiary of its own: filtering by it isolates this test's documents.
    const byBeneficiary = (seeded: typeof document) => seeded.beneficiary!.id;
    expect(await documentPage({ beneficiary_reference: byBeneficiary(document) })).toEqual([]);
    expect(await documentPage({ beneficiary_reference: byBeneficiary(kept) })).toEqual([[kept.id, false]]);
    expect(await documentPage({ beneficiary_reference: byBeneficiary(document), is_archived: 'true' })).toEqual([
      [document.id, true],
    ]);
    expect(await documentPage({ beneficiary_reference: byBeneficiary(kept), is_archived: 'true' })).toEqual([]);
    expect(await documentPage({ beneficiary_reference: byBeneficiary(document), is_archived: 'false' })).toEqual([]);

    const unarchived = expectStatus(await sdk.unarchiveDocument({ params }), 200);
    expect(unarchived.is_archived).toBe(false);
    expect(expectStatus(await sdk.unarchiveDocument({ params }), 200)).toStrictEqual(unarchived);
    expect(archivingLogs(unarchived.logs).map((log) => log.metadata.change)).toEqual(['archived', 'unarchived']);
    expect(await documentPage({ beneficiary_reference: byBeneficiary(document) })).toEqual([[document.id, false]]);
  });

  it('unarchiving a document never archived answers it unchanged and logs nothing', async () => {
    const document = await seedDocument(api.orm, company);
    const params = { reference: document.id };
    const before = expectStatus(await sdk.getDocument({ params }), 200);
    expect(expectStatus(await sdk.unarchiveDocument({ params }), 200)).toStrictEqual(before);
  });

  it("answers 404 document_not_found for another company's document or an unknown one, and changes nothing", async () => {
    const { company: owner, apiKey: ownerKey } = await makeCompany(api.orm);
    const foreign = await seedDocument(api.orm, owner);
    for (const reference of [foreign.id, UNKNOWN]) {
      for (const call of [
        () => sdk.archiveDocument({ params: { reference } }),
        () => sdk.unarchiveDocument({ params: { reference } }),
      ]) {
        const response = await call();
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ code: 'document_not_found', message: expect.any(String) });
      }
    }
    const shown = expectStatus(await api.sdk(ownerKey).getDocument({ params: { reference: foreign.id } }), 200);
    expect(shown.is_archived).toBe(false);
    expect(archivingLogs(shown.logs)).toEqual([]);
  });

  it('refuses a malformed reference with the validation envelope', async () => {
    const response = await api.call('POST', '/public/api/v1/documents/not-a-uuid/archive', {
      apiKey: (await makeCompany(api.orm)).apiKey,
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details).toHaveProperty('reference');
  });

  it('takes only keys without scopes, like the other document commands', async () => {
    const document = await seedDocument(api.orm, company);
    const key = await scopedKey(['payments:read', 'payments:write', 'beneficiaries:read']);
    const response = await api.sdk(key).archiveDocument({ params: { reference: document.id } });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope', required_scope: null });
    const shown = expectStatus(await sdk.getDocument({ params: { reference: document.id } }), 200);
    expect(shown.is_archived).toBe(false);
  });

  it('replays the first answer to the same Idempotency-Key', async () => {
    const document = await seedDocument(api.orm, company);
    const params = { reference: document.id };
    const first = await sdk.archiveDocument({ params, idempotencyKey: `archive-${document.id}` });
    const unarchived = expectStatus(await sdk.unarchiveDocument({ params }), 200);
    const replayed = await sdk.archiveDocument({ params, idempotencyKey: `archive-${document.id}` });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toStrictEqual(first.body);
    // The replay ran nothing: the document stays as the unarchive left it.
    expect(expectStatus(await sdk.getDocument({ params }), 200)).toStrictEqual(unarchived);
  });
});

/** A pending payment of a new beneficiary of `owner`, so that filtering by the beneficiary isolates it. */
async function pendingPayment(owner: Company) {
  const beneficiary = await seedBeneficiary(api.orm, owner, { name: 'Archivos S.A.S.' });
  const payable = await seedPayable(api.orm, owner, { beneficiary, amountCents: 500_00n });
  const payment = await seedPayment(api.orm, owner, { payable, amountCents: 200_00n });
  const processed = await seedPayment(api.orm, owner, { payable, amountCents: 100_00n, status: 'processed' });
  return { payment, processed, beneficiary };
}

async function paymentPage(client: Client, query: { beneficiary_reference: string; state?: 'active' | 'archived' }) {
  const { items } = expectStatus(await client.listPayments({ query }), 200);
  return items.map((item) => [item.reference, item.is_archived]);
}

describe('POST /payments/{reference}/archive and /unarchive', () => {
  it('archives once, lists it with state=archived only, and unarchives it back; its status is untouched', async () => {
    const { payment, processed, beneficiary } = await pendingPayment(company);
    const params = { reference: payment.id };
    const before = expectStatus(await sdk.getPayment({ params }), 200);
    expect(before).toMatchObject({ is_archived: false, status: 'pending' });

    const archived = expectStatus(await sdk.archivePayment({ params }), 200);
    expect(archived).toStrictEqual({ ...before, is_archived: true, updated_at: archived.updated_at });
    expect(archived.updated_at > before.updated_at).toBe(true);
    expect(expectStatus(await sdk.archivePayment({ params }), 200)).toStrictEqual(archived);
    expect(expectStatus(await sdk.getPayment({ params }), 200)).toStrictEqual(archived);

    const query = { beneficiary_reference: beneficiary.id };
    expect(await paymentPage(sdk, query)).toEqual([[processed.id, false]]);
    expect(await paymentPage(sdk, { ...query, state: 'active' })).toEqual([[processed.id, false]]);
    expect(await paymentPage(sdk, { ...query, state: 'archived' })).toEqual([[payment.id, true]]);

    const unarchived = expectStatus(await sdk.unarchivePayment({ params }), 200);
    expect(unarchived).toStrictEqual({ ...before, updated_at: unarchived.updated_at });
    expect(expectStatus(await sdk.unarchivePayment({ params }), 200)).toStrictEqual(unarchived);
    // Newest first: the processed payment was written after the pending one.
    expect(await paymentPage(sdk, query)).toEqual([
      [processed.id, false],
      [payment.id, false],
    ]);
    expect(await paymentPage(sdk, { ...query, state: 'archived' })).toEqual([]);
  });

  it("answers 404 payment_not_found for another company's payment or an unknown one, and 400 for a malformed one", async () => {
    const { company: owner, apiKey: ownerKey } = await makeCompany(api.orm);
    const { payment: foreign } = await pendingPayment(owner);
    for (const reference of [foreign.id, UNKNOWN]) {
      for (const call of [
        () => sdk.archivePayment({ params: { reference } }),
        () => sdk.unarchivePayment({ params: { reference } }),
      ]) {
        const response = await call();
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ code: 'payment_not_found', message: expect.any(String) });
      }
    }
    expect(expectStatus(await api.sdk(ownerKey).getPayment({ params: { reference: foreign.id } }), 200)).toMatchObject({
      is_archived: false,
    });
    const malformed = await sdk.archivePayment({ params: { reference: 'not-a-uuid' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ code: 'invalid_input', message: expect.any(String) });
  });

  it('needs payments:write from a scoped key', async () => {
    const { payment } = await pendingPayment(company);
    const params = { reference: payment.id };
    const reader = await api.sdk(await scopedKey(['payments:read'])).archivePayment({ params });
    expect(reader.status).toBe(403);
    expect(reader.body).toMatchObject({ code: 'insufficient_scope', required_scope: 'payments:write' });
    const writer = api.sdk(await scopedKey(['payments:write']));
    expect(expectStatus(await writer.archivePayment({ params }), 200).is_archived).toBe(true);
    expect(expectStatus(await writer.unarchivePayment({ params }), 200).is_archived).toBe(false);
  });

  it('replays the first answer to the same Idempotency-Key', async () => {
    const { payment } = await pendingPayment(company);
    const params = { reference: payment.id };
    const first = await sdk.archivePayment({ params, idempotencyKey: `archive-${payment.id}` });
    const unarchived = expectStatus(await sdk.unarchivePayment({ params }), 200);
    const replayed = await sdk.archivePayment({ params, idempotencyKey: `archive-${payment.id}` });
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.body).toStrictEqual(first.body);
    expect(expectStatus(await sdk.getPayment({ params }), 200)).toStrictEqual(unarchived);
  });
});
