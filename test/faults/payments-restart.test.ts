// Payments waiting for a validated bank account or for their pay date are durable: with the worker and the Temporal
// server killed (SIGKILL) and started again, each one still goes to the gateway exactly once, and not before it should.
// And a SAT cancellation that loses its worker while it cancels a CFDI's payments still lets none of them out.
// Real processes: the fault harness's API, worker, Temporal dev server and PostgreSQL; a day ahead of a pay date
// lasts PAYMENT_DAY_MS.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { todayIn } from '../../services/payments/schedule.ts';
import { addSupplierAccount, setUpCompany } from '../harness/company.ts';
import { integratorClient, type Integrator } from '../harness/integrator.ts';
import { writeInvoices } from '../harness/invoices.ts';
import { writeCfdiInvoices } from '../helpers/cfdi-files.ts';
import { clabeOf } from '../helpers/payments.ts';
import { satMetadataLine } from '../helpers/sat-metadata-lines.ts';
import { SAT_METADATA_HEADER } from '../../simulators/sat-provider/server.ts';
import { operatorClient, type Operator } from '../harness/operator.ts';
import { RetryStats } from '../harness/retry-stats.ts';
import { startFaultStack, type FaultStack } from '../harness/stack.ts';

const DAY_MS = 500;

let stack: FaultStack;
let ops: Operator;
let integrator: Integrator;
let beneficiary: string;

beforeAll(async () => {
  stack = await startFaultStack({ env: { PAYMENT_DAY_MS: String(DAY_MS) } });
  ops = operatorClient(stack.env, new RetryStats(), 60_000);
  const { company, apiKey } = await setUpCompany(stack, ops);
  integrator = integratorClient({ baseUrls: stack.apiUrls, apiKey, stats: new RetryStats(), giveUpAfterMs: 120_000 });
  const [invoice] = writeInvoices(join(stack.dir, 'invoices'), 1, company);
  const imported = await ops('documents', 'import', '--company', company, invoice!.path);
  const document = await integrator(
    'GET',
    `/public/api/v1/documents/${imported.stdout.documents[0].reference}?fields=beneficiaries`,
  );
  beneficiary = document.body.beneficiary.reference;
}, 300_000);

afterAll(() => stack?.stop());

function day(offset: number): string {
  const date = new Date(`${todayIn('COL')}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + offset);
  return date.toISOString().slice(0, 10);
}

const pay = async (amount: number, expirationDate: string, payDate?: string) => {
  const answer = await integrator('POST', '/public/api/v1/payments', {
    body: {
      beneficiary_reference: beneficiary,
      amount,
      amount_currency: 'COP',
      ...(payDate ? { pay_date: payDate } : {}),
      payable_payload: { expiration_date: expirationDate },
    },
  });
  expect(answer.status).toBe(201);
  return answer.body.reference as string;
};
const detail = async (reference: string) => (await integrator('GET', `/public/api/v1/payments/${reference}`)).body;
const gatewayStatus = async (reference: string) => (await detail(reference)).payment_gateway?.status;

async function transfersOf(reference: string): Promise<number> {
  const response = await fetch(`${stack.env.PAYMENT_GATEWAY_URL}/_control/transfers`);
  const { transfers } = (await response.json()) as { transfers: { reference: string }[] };
  return transfers.filter((transfer) => transfer.reference === reference).length;
}

describe('payments across a worker and Temporal restart', () => {
  it('keeps a payment waiting for an account and payments waiting for their date, and pays each once, when due', async () => {
    const waiting = await pay(1_000, day(-1));
    // 60 days ahead: 30 s, well past the restart.
    const scheduled = await pay(2_000, day(90), day(60));
    const rescheduled = await pay(3_000, day(400));
    const moved = await ops('payments', 'reschedule', '--payment', rescheduled, '--due-date', day(70));
    expect(moved.stdout).toMatchObject({ previous_due_date: day(400), new_due_date: day(70) });

    await expect.poll(() => gatewayStatus(waiting), { timeout: 60_000 }).toBe('waiting_for_validated_account');
    expect(await gatewayStatus(scheduled)).toBe('scheduled');
    expect(await gatewayStatus(rescheduled)).toBe('scheduled');

    await Promise.all([stack.worker.kill(), stack.temporal.kill()]);
    await stack.temporal.start();
    await stack.worker.start();

    expect(await gatewayStatus(waiting)).toBe('waiting_for_validated_account');
    expect(await transfersOf(waiting)).toBe(0);
    // The account registered after the restart wakes the waiting payment.
    await addSupplierAccount(integrator, ops, beneficiary);
    for (const reference of [waiting, scheduled, rescheduled])
      await expect
        .poll(async () => (await detail(reference)).status, { timeout: 90_000, interval: 250 })
        .toBe('processed');

    const submittedAfter = async (reference: string) => {
      const paid = await detail(reference);
      return Date.parse(paid.payment_gateway.submitted_at) - Date.parse(paid.created_at);
    };
    expect(await submittedAfter(scheduled)).toBeGreaterThanOrEqual(60 * DAY_MS);
    // Moved from 400 days (200 s) to 70 (35 s): its timer moved with it.
    expect(await submittedAfter(rescheduled)).toBeGreaterThanOrEqual(70 * DAY_MS);
    expect(await submittedAfter(rescheduled)).toBeLessThan(400 * DAY_MS);
    for (const reference of [waiting, scheduled, rescheduled]) expect(await transfersOf(reference)).toBe(1);
  }, 300_000);
});

describe('a SAT cancellation across a worker kill', () => {
  it("cancels every payment of the CFDI, and none reaches the gateway once the supplier's account is validated", async () => {
    const created = await ops('companies', 'create', '--name', 'Ferretería Anulada', '--country', 'MEX');
    expect(created.code, JSON.stringify(created.error)).toBe(0);
    const { reference: company, api_key: apiKey } = created.stdout;
    const mexican = integratorClient({
      baseUrls: stack.apiUrls,
      apiKey,
      stats: new RetryStats(),
      giveUpAfterMs: 120_000,
    });
    const { files } = writeCfdiInvoices(1, 7700);
    const imported = await ops('documents', 'import', '--company', company, ...files);
    expect(imported.code, JSON.stringify(imported.error)).toBe(0);
    const { reference: document, fiscal_reference: uuid } = imported.stdout.documents[0];
    expect((await mexican('POST', `/public/api/v1/documents/${document}/approve`, { body: {} })).status).toBe(200);
    const approved = (await mexican('GET', `/public/api/v1/documents/${document}?fields=beneficiaries`)).body;
    const payable = approved.payables[0].reference;

    // The supplier has no account yet: every payment waits for one, on today's date.
    const payments: string[] = [];
    for (let n = 0; n < 20; n++) {
      const answer = await mexican('POST', '/public/api/v1/payments', {
        body: { payable_reference: payable, amount: 100, amount_currency: 'MXN' },
      });
      expect(answer.status).toBe(201);
      payments.push(answer.body.reference);
    }
    const status = async (reference: string) =>
      (await mexican('GET', `/public/api/v1/payments/${reference}`)).body.payment_gateway?.status;
    for (const reference of payments)
      await expect.poll(() => status(reference), { timeout: 60_000 }).toBe('waiting_for_validated_account');

    const metadata = join(stack.dir, `${randomUUID().toUpperCase()}_01.txt`);
    writeFileSync(metadata, `${SAT_METADATA_HEADER}\r\n${satMetadataLine(uuid, '0', '2026-11-25 09:30:00')}\r\n`);
    // The worker dies once the command has cancelled the first payment (they go in order), while it cancels the rest.
    // The operator runs it again while it fails for want of the worker, for as long as a busy machine takes to restart one.
    const patient = operatorClient(stack.env, new RetryStats(), 240_000);
    const cancellation = patient('documents', 'import', '--company', company, metadata).catch((error: unknown) =>
      error instanceof Error ? error : new Error(String(error)),
    );
    await expect.poll(() => status(payments[0]!), { timeout: 60_000, interval: 10 }).toBe('canceled');
    await stack.worker.kill();
    const beforeKill = (await Promise.all(payments.map(status))).filter((state) => state === 'canceled').length;

    // The account is registered and validated once the worker is back: a payment left pending would now go out.
    const banks = (await mexican('GET', '/public/api/v1/banks')).body as { reference: string; bank_code: string }[];
    const bank = banks.find((candidate) => candidate.bank_code === '072') ?? banks[0]!;
    const account = await mexican(
      'POST',
      `/public/api/v1/beneficiaries/${approved.beneficiary.reference}/bank-accounts`,
      {
        body: {
          bank_reference: bank.reference,
          account_number: clabeOf(bank.bank_code, '77001'),
          account_type: 'checking',
        },
      },
    );
    expect(account.status, JSON.stringify(account.body)).toBe(201);
    await stack.worker.start();

    const applied = await cancellation;
    if (applied instanceof Error) throw applied;
    expect(applied.code, JSON.stringify(applied.error)).toBe(0);
    // An attempt cut short is run again by the operator; applying the same file again finishes what it left pending.
    expect(applied.stdout.metadata).toMatchObject({ applied: 1, payments_not_canceled: [] });
    for (const reference of payments) await expect.poll(() => status(reference), { timeout: 60_000 }).toBe('canceled');
    const validation = async () =>
      (
        await stack.query<{ validation_status: string }>(
          'select validation_status from beneficiary_bank_accounts where id = $1',
          [account.body.reference],
        )
      )[0]?.validation_status;
    await expect.poll(validation, { timeout: 60_000 }).toBe('validated');
    for (const reference of payments) expect(await transfersOf(reference)).toBe(0);
    console.info(
      `SAT cancellation across a worker kill: ${beforeKill} of ${payments.length} payments cancelled before the kill, none sent`,
    );
  }, 300_000);
});
