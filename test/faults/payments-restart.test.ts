// Payments waiting for a validated bank account or for their pay date are durable: with the worker and the Temporal
// server killed (SIGKILL) and started again, each one still goes to the gateway exactly once, and not before it should.
// Real processes: the fault harness's API, worker, Temporal dev server and PostgreSQL; a day ahead of a pay date
// lasts PAYMENT_DAY_MS.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { todayIn } from '../../services/payments/schedule.ts';
import { addSupplierAccount, setUpCompany } from '../harness/company.ts';
import { integratorClient, type Integrator } from '../harness/integrator.ts';
import { writeInvoices } from '../harness/invoices.ts';
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
