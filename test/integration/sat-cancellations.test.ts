// SAT cancellations stop payments: a CFDI that SAT's metadata lists with Estatus 0 is cancelled here too, over HTTP as
// integrators see it. Its pending payments are cancelled through their processes before their day (and never reach the
// gateway), a payment the gateway already holds is reported in the log, not reversed, its payables are canceled, and
// a new payment of it is refused (`document_canceled`) without writing anything. The metadata comes from files built
// here (`ops documents import`) and from the SAT provider simulator (the fiscal sync).
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus, type Client, type Document, type Payment } from '@accounts-payable/client';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { Beneficiary } from '../../db/beneficiaries/beneficiary.entity.ts';
import type { Company } from '../../db/companies/company.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import { Document as DocumentRow } from '../../db/documents/document.entity.ts';
import { IdempotencyKey } from '../../db/idempotency/idempotency-key.entity.ts';
import { companyEm, systemEm } from '../../db/orm.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment as PaymentRow } from '../../db/payments/payment.entity.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { todayIn } from '../../services/payments/schedule.ts';
import { SAT_METADATA_HEADER } from '../../simulators/sat-provider/server.ts';
import { createPaymentThroughProcess } from '../../temporal/payments.ts';
import { writeCfdiInvoices } from '../helpers/cfdi-files.ts';
import { satMetadataLine as metadataLine } from '../helpers/sat-metadata-lines.ts';
import { makeCompany } from '../helpers/companies.ts';
import {
  FAST_FISCAL_SYNC_TIMING,
  latestRun,
  registerCredentials,
  satProvider,
  uniqueRfc,
} from '../helpers/fiscal-sync.ts';
import { ops } from '../helpers/ops.ts';
import { clabeOf, gatewayTransfers, seedBankAccount, steerGateway } from '../helpers/payments.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const ISSUER = 'H&E951128469';
const dir = tempDir('ap-sat-metadata-');
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ config: { paymentPollIntervalMs: 100, fiscalSync: FAST_FISCAL_SYNC_TIMING } });
});
afterAll(() => api.close());

/** A day in Mexico City, `offset` days from today (days ahead last 100 ms in the suite: 3,000 is five minutes). */
function day(offset: number): string {
  const date = new Date(`${todayIn('MEX')}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + offset);
  return date.toISOString().slice(0, 10);
}

/** SAT's metadata file (CRLF, as SAT ends its lines), written to a file named like SAT's. */
function metadataFile(lines: string[]): string {
  const file = join(dir, `${randomUUID().toUpperCase()}_01.txt`);
  writeFileSync(file, `${[SAT_METADATA_HEADER, ...lines].join('\r\n')}\r\n`);
  return file;
}

interface Imported {
  company: Company;
  sdk: Client;
  document: Document;
  uuid: string;
  payable: string;
}

/** A Mexican company with one CFDI imported by the CLI and approved (its payable generated). */
async function importedAndApproved(folio: number): Promise<Imported> {
  const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
  const sdk = api.sdk(apiKey);
  const { files } = writeCfdiInvoices(1, folio);
  const imported = await ops('documents', 'import', '--company', company.id, ...files);
  expect(imported.code, JSON.stringify(imported.stderr)).toBe(0);
  const { reference, fiscal_reference: uuid } = imported.stdout.documents[0];
  expectStatus(await sdk.approveDocument({ params: { reference }, body: {} }), 200);
  const document = expectStatus(await sdk.getDocument({ params: { reference } }), 200);
  expect(document.payables).toHaveLength(1);
  return { company, sdk, document, uuid, payable: document.payables![0]!.reference };
}

const detail = async (sdk: Client, reference: string) =>
  expectStatus(await sdk.getPayment({ params: { reference } }), 200);

async function until(sdk: Client, reference: string, test: (payment: Payment) => boolean): Promise<Payment> {
  let seen: Payment | undefined;
  await expect
    .poll(async () => test((seen = await detail(sdk, reference))), { timeout: 30_000, interval: 100 })
    .toBe(true);
  return seen!;
}

const cancellationLogs = (company: Company, document: string) =>
  companyEm(api.orm, company.id).find(
    ActivityLog,
    { document, event: 'document.updated' },
    { orderBy: { createdAt: 'asc', id: 'asc' } },
  );

describe('ops documents import of SAT metadata', () => {
  it('cancels the CFDI, its scheduled payment before its day, its payable; the gateway never sees it', async () => {
    const { company, sdk, document, uuid, payable } = await importedAndApproved(9100);
    const beneficiary = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, { identifierNumber: ISSUER });
    await seedBankAccount(api.orm, company, beneficiary, {
      bankCode: '072',
      accountNumber: clabeOf('072', `${process.pid}${folioSuffix()}`),
    });
    // One payment the gateway already holds (it keeps the transfer processing), one scheduled for a later day.
    await steerGateway({ amount_cents: '123471', outcome: 'hold' });
    const atGateway = expectStatus(
      await sdk.createPayment({ body: { payable_reference: payable, amount: 1234.71, amount_currency: 'MXN' } }),
      201,
    );
    await until(sdk, atGateway.reference, (payment) => payment.status === 'in_process');
    const scheduled = expectStatus(
      await sdk.createPayment({
        body: { payable_reference: payable, amount: 10_000, amount_currency: 'MXN', pay_date: day(3000) },
      }),
      201,
    );
    expect((await detail(sdk, scheduled.reference)).payment_gateway).toEqual({
      status: 'scheduled',
      pay_date: day(3000),
    });

    const unknown = randomUUID();
    const file = metadataFile([
      metadataLine(unknown, '0', '2026-11-24 18:00:00'),
      'E7215E3B-2DC5-4A40-AB10-C902FF9258DF~XAXX010101000~RAZON SOCIAL 1',
      metadataLine(uuid, '0', '2026-11-25 09:30:00'),
    ]);
    const applied = await ops('documents', 'import', '--company', company.id, file);
    expect(applied.code, JSON.stringify(applied.stderr)).toBe(0);
    const report = {
      lines: 3,
      applied: 1,
      canceled: 1,
      unknown: 1,
      malformed: 1,
      malformed_lines: [{ line: 3, reason: 'has 3 fields where the header names 12 (separated by ~)' }],
      conflicting: 0,
      conflicting_lines: [],
      payments_canceled: [scheduled.reference],
      payments_not_canceled: [],
    };
    expect(applied.stdout).toEqual({
      documents: [],
      errors: [],
      metadata: report,
      files: [{ file, outcome: 'metadata_applied', ...report }],
    });

    const shown = expectStatus(await sdk.getDocument({ params: { reference: document.reference } }), 200);
    expect(shown).toMatchObject({
      is_canceled: true,
      canceled_at: '2026-11-25T15:30:00.000Z',
      payables: [{ reference: payable, status: 'canceled' }],
    });
    const log = shown.logs!.filter((entry) => entry.metadata.change === 'canceled');
    expect(log).toEqual([
      {
        event: 'document.updated',
        created_at: expect.any(String),
        actor: { type: 'system', source: 'sat' },
        metadata: {
          change: 'canceled',
          canceled_at: '2026-11-25T09:30:00-06:00',
          fiscal_reference: uuid,
          read_from: 'ops documents import',
          payables_canceled: [payable],
          payments_canceling: [scheduled.reference],
          payments_at_gateway: [{ payment: atGateway.reference, status: 'in_process' }],
        },
      },
    ]);
    const canceled = await detail(sdk, scheduled.reference);
    expect(canceled).toMatchObject({
      status: 'failed',
      payment_gateway: {
        status: 'canceled',
        canceled_at: expect.any(String),
        failure_reason: `Canceled: the CFDI ${uuid} was cancelled before SAT on 2026-11-25T09:30:00-06:00`,
      },
    });
    expect(await api.client.workflow.getHandle(`payment/${scheduled.reference}`).result()).toBe('canceled');
    expect(await gatewayTransfers([scheduled.reference])).toEqual([]);
    // The payment the gateway held is left to it: not reversed.
    expect((await gatewayTransfers([atGateway.reference])).map((transfer) => transfer.status)).toEqual(['processing']);
    expect((await detail(sdk, atGateway.reference)).status).toBe('in_process');

    expect(
      await sdk.createPayment({ body: { payable_reference: payable, amount: 1, amount_currency: 'MXN' } }),
    ).toMatchObject({ status: 422, body: { code: 'document_canceled' } });
    const listed = expectStatus(await sdk.listDocuments({ query: { is_canceled: 'true' } }), 200);
    expect(listed.items.map((item) => [item.reference, item.is_canceled, item.canceled_at])).toEqual([
      [document.reference, true, '2026-11-25T15:30:00.000Z'],
    ]);
    expect(expectStatus(await sdk.listDocuments({ query: { is_canceled: 'false' } }), 200).total).toBe(0);

    // The same metadata again: nothing more changes, nothing more is logged.
    const logsBefore = await cancellationLogs(company, document.reference);
    const again = await ops('documents', 'import', '--company', company.id, file);
    expect(again.stdout.metadata).toMatchObject({
      lines: 3,
      applied: 1,
      canceled: 0,
      unknown: 1,
      payments_canceled: [],
    });
    expect(await cancellationLogs(company, document.reference)).toEqual(logsBefore);
    expect(expectStatus(await sdk.getDocument({ params: { reference: document.reference } }), 200).canceled_at).toBe(
      '2026-11-25T15:30:00.000Z',
    );
  });

  it("applies only to the company's own documents, and refuses a Colombian company", async () => {
    const { document, uuid } = await importedAndApproved(9200);
    const other = await makeCompany(api.orm, { country: 'MEX' });
    const file = metadataFile([metadataLine(uuid, '0', '2026-11-25 09:30:00')]);
    const elsewhere = await ops('documents', 'import', '--company', other.company.id, file);
    expect(elsewhere.stdout.metadata).toMatchObject({ lines: 1, applied: 0, canceled: 0, unknown: 1 });
    const owner = await systemEm(api.orm).findOneOrFail(Payable, { document: document.reference });
    expect(owner.status).toBe('pending');

    const colombian = await makeCompany(api.orm, { country: 'COL' });
    const refused = await ops('documents', 'import', '--company', colombian.company.id, file);
    expect([refused.code, refused.stderr.error.code]).toEqual([1, 'import_failed']);
    expect(refused.stderr.error.message).toContain("SAT's metadata is about Mexican CFDI");
  });

  it("passes over a line whose issuer is not the CFDI's, naming it", async () => {
    const { company, sdk, document, uuid } = await importedAndApproved(9300);
    const file = metadataFile([metadataLine(uuid, '0', '2026-11-25 09:30:00', 'AAA010101AAA')]);
    const applied = await ops('documents', 'import', '--company', company.id, file);
    expect(applied.stdout.metadata).toMatchObject({
      applied: 0,
      canceled: 0,
      conflicting: 1,
      conflicting_lines: [
        { line: 2, reason: `RfcEmisor AAA010101AAA is not the issuer of the company's CFDI ${uuid} (${ISSUER})` },
      ],
    });
    expect(expectStatus(await sdk.getDocument({ params: { reference: document.reference } }), 200).is_canceled).toBe(
      false,
    );
  });
});

describe('a payment of a cancelled CFDI', () => {
  it('is refused with document_canceled and writes nothing, over HTTP and in its own process', async () => {
    const { company, sdk, uuid, payable } = await importedAndApproved(9400);
    await ops(
      'documents',
      'import',
      '--company',
      company.id,
      metadataFile([metadataLine(uuid, '0', '2026-11-26 12:00:00')]),
    );
    const em = () => companyEm(api.orm, company.id);
    const counts = async () => ({
      payments: await em().count(PaymentRow, {}),
      payables: await em().count(Payable, {}),
      logs: await em().count(ActivityLog, {}),
      keys: await systemEm(api.orm).count(IdempotencyKey, { company: company.id }),
    });
    const before = await counts();
    const answered = await sdk.createPayment({
      body: { payable_reference: payable, amount: 100, amount_currency: 'MXN' },
    });
    expect(answered).toMatchObject({
      status: 422,
      body: { code: 'document_canceled', message: expect.stringContaining('cancelled before the tax authority') },
    });
    // The activity checks again under the payable's lock: a payment that got past the API's check is refused there.
    const paymentId = randomUUID();
    const inProcess = await createPaymentThroughProcess(
      { client: api.client, taskQueue: inject('taskQueue') },
      { companyId: company.id, paymentId, pollIntervalMs: 100 },
      {
        beneficiaryId: null,
        payableId: payable,
        amountCents: '10000',
        currency: 'MXN',
        exchangeRate: null,
        exchangeCurrency: null,
        exchangeAmountCents: null,
        filePath: null,
        payDate: null,
        payable: null,
      },
    ).catch((error: unknown) => error);
    expect(inProcess).toBeInstanceOf(WorkflowUpdateFailedError);
    expect(((inProcess as WorkflowUpdateFailedError).cause as { type?: string }).type).toBe('document_canceled');
    expect(await api.client.workflow.getHandle(`payment/${paymentId}`).result()).toBe('refused');
    expect(await counts()).toEqual(before);
  });
});

describe('a cancellation cut short', () => {
  it('still sends nothing: the payment it did not reach ends cancelled on its pay date, as the cancellation would', async () => {
    const { company, sdk, document, uuid, payable } = await importedAndApproved(9500);
    const beneficiary = await companyEm(api.orm, company.id).findOneOrFail(Beneficiary, { identifierNumber: ISSUER });
    await seedBankAccount(api.orm, company, beneficiary, {
      bankCode: '072',
      accountNumber: clabeOf('072', `${process.pid}95${folioSuffix()}`),
      validationStatus: 'validated',
    });
    const scheduled = expectStatus(
      await sdk.createPayment({
        body: { payable_reference: payable, amount: 100, amount_currency: 'MXN', pay_date: day(20) },
      }),
      201,
    );
    // The document was cancelled and the run stopped before it reached the payment's process.
    const canceledAt = new Date('2026-11-26T18:00:00.000Z');
    await companyEm(api.orm, company.id).nativeUpdate(
      DocumentRow,
      { id: document.reference },
      { isCanceled: true, canceledAt },
    );
    expect(await api.client.workflow.getHandle(`payment/${scheduled.reference}`).result()).toBe('failed');
    expect(await detail(sdk, scheduled.reference)).toMatchObject({
      status: 'failed',
      payment_gateway: {
        status: 'canceled',
        failure_reason: `Canceled: the CFDI ${uuid} was cancelled before SAT on ${canceledAt.toISOString()}`,
      },
    });
    expect(await gatewayTransfers([scheduled.reference])).toEqual([]);
  });
});

describe('a CFDI cancelled before it is approved', () => {
  it('has its payables generated canceled on approval, and no payment of them', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    const sdk = api.sdk(apiKey);
    const imported = await ops('documents', 'import', '--company', company.id, ...writeCfdiInvoices(1, 9500).files);
    const { reference, fiscal_reference: uuid } = imported.stdout.documents[0];
    const applied = await ops(
      'documents',
      'import',
      '--company',
      company.id,
      metadataFile([metadataLine(uuid, '0', '2026-11-26 12:00:00')]),
    );
    expect(applied.stdout.metadata).toMatchObject({ applied: 1, canceled: 1 });
    expectStatus(await sdk.approveDocument({ params: { reference }, body: {} }), 200);
    const { payables, is_canceled } = expectStatus(await sdk.getDocument({ params: { reference } }), 200);
    expect(is_canceled).toBe(true);
    expect(payables!.map((payable) => payable.status)).toEqual(['canceled']);
    expect(
      await sdk.createPayment({
        body: { payable_reference: payables![0]!.reference, amount: 1, amount_currency: 'MXN' },
      }),
    ).toMatchObject({ status: 422, body: { code: 'document_canceled' } });
  });
});

describe('the Mexican fiscal sync reads SAT metadata', () => {
  const INVOICE_UUID = '6d7434a6-e3f2-47ad-9e4c-08849946afa0';

  it("asks SAT for the received CFDI's metadata too, and cancels what it lists as cancelled", async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'MEX' });
    const sdk = api.sdk(apiKey);
    const rfc = uniqueRfc();
    await registerCredentials(api.orm, company, { ciecStatus: 'valid', rfc });
    const settled = async () => {
      await expect
        .poll(async () => expectStatus(await sdk.getFiscalSyncStatus({ query: {} }), 200).status, {
          timeout: 30_000,
          interval: 200,
        })
        .toMatch(/^(finished|failed)$/);
      return latestRun(api.orm, company.id);
    };

    // First sync: the CFDI, and their metadata, every one current.
    const started = expectStatus(await sdk.startFiscalSync(), 202);
    const first = await settled();
    expect(first.status).toBe('finished');
    const extractions = await satProvider.extractions(rfc);
    expect(extractions.map((extraction) => extraction.format)).toEqual(['xml', 'metadata']);
    // The company had no document yet: the metadata of the same day.
    expect(extractions[1]!.period).toEqual({ from: started.sync_from, to: started.sync_to });
    expect(first.details).toMatchObject({
      documents_created: 2,
      metadata: {
        extraction_id: extractions[1]!.id,
        // The two invoices, and the payment receipt, which is no document of the company's.
        lines: 3,
        applied: 2,
        canceled: 0,
        unknown: 1,
        malformed: 0,
        // The junk of SAT's sample metadata package.
        entries_skipped: 4,
      },
    });

    const invoice = expectStatus(await sdk.listDocuments({ query: { fiscal_reference: INVOICE_UUID } }), 200).items[0]!;
    expectStatus(await sdk.approveDocument({ params: { reference: invoice.reference }, body: {} }), 200);
    const { payables } = expectStatus(await sdk.getDocument({ params: { reference: invoice.reference } }), 200);
    const payment = expectStatus(
      await sdk.createPayment({
        body: { payable_reference: payables![0]!.reference, amount: 500, amount_currency: 'MXN', pay_date: day(3000) },
      }),
      201,
    );

    // The next sync: SAT lists the invoice as cancelled (CRLF, a line it cannot read among them).
    await satProvider.behave(rfc, {
      metadata: [
        {
          text: [
            SAT_METADATA_HEADER,
            metadataLine(INVOICE_UUID, '0', '2026-11-27 08:00:00'),
            `${randomUUID()}~broken`,
            metadataLine(randomUUID(), '0', '2026-11-27 08:05:00'),
            '',
          ].join('\r\n'),
        },
      ],
    });
    await systemEm(api.orm).execute(
      `update fiscal_credentials set last_sync_started_at = clock_timestamp() - interval '61 minutes' where company_id = ?`,
      [company.id],
    );
    const again = expectStatus(await sdk.startFiscalSync(), 202);
    const second = await settled();
    // Now it reaches back to the oldest unpaid CFDI (issued in 2020), bounded by SAT's six years: cancellations come
    // any time after issue.
    const metadataRequest = (await satProvider.extractions(rfc))[3]!;
    expect(metadataRequest.format).toBe('metadata');
    expect(metadataRequest.period.to).toBe(again.sync_to);
    expect(metadataRequest.period.from).toMatch(
      new RegExp(`^${Number(again.sync_to!.slice(0, 4)) - 6}-\\d{2}-\\d{2}T00:00:00-06:00$`),
    );
    expect(second.status).toBe('finished');
    expect(second.details).toMatchObject({
      documents_created: 0,
      documents_existing: 2,
      metadata: { lines: 3, applied: 1, canceled: 1, unknown: 1, malformed: 1, payments_canceled: 1 },
    });
    expect(
      (second.details!.metadata as { packages: Record<string, { malformed_lines: unknown[] }> }).packages[
        `${(await satProvider.extractions(rfc))[3]!.id.toUpperCase()}_01`
      ]!.malformed_lines,
    ).toEqual([{ line: 3, reason: 'has 2 fields where the header names 12 (separated by ~)' }]);

    const shown = expectStatus(await sdk.getDocument({ params: { reference: invoice.reference } }), 200);
    expect(shown).toMatchObject({
      is_canceled: true,
      canceled_at: '2026-11-27T14:00:00.000Z',
      payables: [{ status: 'canceled' }],
    });
    expect(shown.logs!.filter((entry) => entry.metadata.change === 'canceled')).toEqual([
      expect.objectContaining({ metadata: expect.objectContaining({ read_from: 'fiscal sync' }) }),
    ]);
    expect(await until(sdk, payment.reference, (seen) => seen.status === 'failed')).toMatchObject({
      payment_gateway: { status: 'canceled' },
    });
    expect(await gatewayTransfers([payment.reference])).toEqual([]);
  });
});

let folios = 0;
function folioSuffix(): string {
  return String(++folios).padStart(3, '0');
}
