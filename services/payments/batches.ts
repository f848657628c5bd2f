import { Refusal } from '../../platform/refusal.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { companyEm, type EntityManager } from '../../db/orm.ts';
import { PaymentBatch } from '../../db/payments/payment-batch.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { Processes } from '../processes.ts';
import { markSubmitted, type TransferState } from './payments.ts';
import { refuseUnlessPending } from './pending.ts';
import { transferRequest, type GatewayDeps } from './transfers.ts';

export type BatchRefusal =
  | 'payment_not_found'
  | 'payment_in_process'
  | 'payment_final'
  | 'batch_mixed_companies'
  | 'batch_mixed_currencies'
  | 'payment_in_batch'
  | 'no_validated_account'
  | 'document_canceled'
  | 'batch_empty';

export class BatchRefused extends Refusal<BatchRefusal> {}

/**
 * Groups pending payments of one company and one currency, each with a validated account, into a batch, so that
 * they go to the gateway together. Everything is checked before anything is written. `em` sees every company: mixing
 * two is refused by name.
 */
export async function createPaymentBatch(
  em: EntityManager,
  input: { paymentIds: string[]; name: string | null },
): Promise<{ batch: PaymentBatch; payments: Payment[] }> {
  const ids = [...new Set(input.paymentIds.map((id) => id.toLowerCase()))];
  if (ids.length === 0) throw new BatchRefused('batch_empty', 'Name at least one payment');
  return em.transactional(async (tx) => {
    const found = await tx.find(Payment, { id: { $in: ids } }, { populate: ['beneficiary', 'company'] });
    const payments = found.toSorted((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));
    for (const id of ids) {
      const payment = payments.find((candidate) => candidate.id === id) ?? null;
      try {
        refuseUnlessPending(payment, id);
      } catch (error) {
        throw new BatchRefused((error as BatchRefused).code, `${id}: ${(error as Error).message}`);
      }
    }
    const companies = new Set(payments.map((payment) => payment.company.id));
    if (companies.size > 1)
      throw new BatchRefused(
        'batch_mixed_companies',
        `The payments belong to ${companies.size} companies: a batch is one company's`,
      );
    const currencies = new Set(payments.map((payment) => payment.currency));
    if (currencies.size > 1)
      throw new BatchRefused(
        'batch_mixed_currencies',
        `The payments are in ${[...currencies].join(' and ')}: a batch is one currency`,
      );
    const batched = payments.find((payment) => payment.batch);
    if (batched) throw new BatchRefused('payment_in_batch', `${batched.id} is in batch ${batched.batch!.id} already`);
    const validated = await tx.find(
      BeneficiaryBankAccount,
      { beneficiary: { $in: payments.map((payment) => payment.beneficiary.id) }, validationStatus: 'validated' },
      { fields: ['beneficiary'] },
    );
    const payable = new Set(validated.map((account) => account.beneficiary.id));
    const unpayable = payments.find((payment) => !payable.has(payment.beneficiary.id));
    if (unpayable)
      throw new BatchRefused(
        'no_validated_account',
        `${unpayable.id}: ${unpayable.beneficiary.name} has no validated bank account`,
      );
    // A cancellation cancels the document's pending payments through their process: none joins a batch meanwhile.
    await tx.populate(payments, ['payable.document']);
    const canceled = payments.find((payment) => payment.payable.document?.isCanceled);
    if (canceled)
      throw new BatchRefused(
        'document_canceled',
        `${canceled.id}: its document was cancelled before the tax authority; it is not paid`,
      );
    const company = payments[0]!.company;
    const batch = tx.create(PaymentBatch, {
      company,
      name: input.name ?? `Lote ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`,
      currency: payments[0]!.currency,
      status: 'releasing',
    });
    for (const payment of payments) payment.batch = batch;
    return { batch, payments };
  });
}

/**
 * Asks each payment's workflow to join the batch; one already on its way (or changed meanwhile) stays out and leaves
 * the batch. Answers the payments that joined.
 */
export async function joinPaymentsToBatch(
  deps: { orm: GatewayDeps['orm']; processes: Processes },
  input: { companyId: string; batchId: string; paymentIds: string[] },
): Promise<string[]> {
  const joined: string[] = [];
  for (const paymentId of input.paymentIds) {
    if (await deps.processes.joinPaymentBatch(paymentId, input.batchId)) joined.push(paymentId);
    else await leaveBatch(deps, { companyId: input.companyId, paymentId });
  }
  return joined;
}

/** A payment its workflow did not let into the batch (it was already on its way): it leaves the batch. */
export async function leaveBatch(
  deps: Pick<GatewayDeps, 'orm'>,
  input: { companyId: string; paymentId: string },
): Promise<void> {
  await companyEm(deps.orm, input.companyId).nativeUpdate(Payment, { id: input.paymentId }, { batch: null });
}

/**
 * Hands the batch's payments to the gateway as one bulk transfer (idempotent: the batch reference names it, each
 * payment's reference its own transfer), marks each `in_process`, and the batch `released`. Answers where each
 * payment's transfer stands; one the gateway refused has failed.
 */
export async function submitBatch(
  deps: GatewayDeps,
  input: { companyId: string; batchId: string; paymentIds: string[] },
): Promise<Record<string, TransferState>> {
  const em = companyEm(deps.orm, input.companyId);
  const payments = await em.find(Payment, { id: { $in: input.paymentIds } }, { populate: ['beneficiary', 'payable'] });
  const accounts = await em.find(
    BeneficiaryBankAccount,
    { beneficiary: { $in: payments.map((payment) => payment.beneficiary.id) }, validationStatus: 'validated' },
    { populate: ['bank'], orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  // A payment whose account lost its validation since the batch was made stays out of the bulk transfer.
  const payable = payments.flatMap((payment) => {
    const account = accounts.find((candidate) => candidate.beneficiary.id === payment.beneficiary.id);
    return account ? [{ ...transferRequest(payment, account), idempotency_key: payment.id }] : [];
  });
  if (payable.length === 0) return {};
  const bulk = await deps.gateway.submitBulk(input.batchId, { reference: input.batchId, transfers: payable });
  const states: Record<string, TransferState> = {};
  const submittedAt = new Date().toISOString();
  for (const transfer of bulk.transfers) {
    states[transfer.reference] = {
      transferId: transfer.id,
      status: transfer.status,
      failureReason: transfer.failure_reason ?? null,
      settledAt: transfer.settled_at ?? null,
      method: transfer.method ?? null,
    };
    if (transfer.id !== null)
      await markSubmitted(deps.orm, {
        companyId: input.companyId,
        paymentId: transfer.reference,
        transferId: transfer.id,
        submittedAt,
      });
  }
  await em.nativeUpdate(PaymentBatch, { id: input.batchId }, { status: 'released', gatewayReference: bulk.id });
  return states;
}
