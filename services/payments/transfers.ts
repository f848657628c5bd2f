import { ApplicationFailure } from '@temporalio/common';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { TransferState } from './payments.ts';
import { markSubmitted } from './payments.ts';
import { TransferRefused, type TransferView, type paymentGatewayClient } from './gateway-client.ts';

export interface GatewayDeps {
  orm: Orm;
  gateway: ReturnType<typeof paymentGatewayClient>;
}

const toState = (transfer: TransferView): TransferState => ({
  transferId: transfer.id,
  status: transfer.status,
  failureReason: transfer.failure_reason ?? null,
  settledAt: transfer.settled_at ?? null,
  method: transfer.method ?? null,
});

/**
 * Hands a payment to the gateway, with the payment reference as idempotency key (a retried call finds the same
 * transfer), to the beneficiary's first validated bank account when it has one; then marks it `in_process`.
 * A refusal by the gateway is an outcome (the payment fails), not an error to retry.
 */
export async function submitPayment(
  deps: GatewayDeps,
  input: { companyId: string; paymentId: string },
): Promise<TransferState> {
  const em = companyEm(deps.orm, input.companyId);
  const payment = await em.findOne(Payment, { id: input.paymentId }, { populate: ['beneficiary', 'payable'] });
  if (!payment) throw ApplicationFailure.nonRetryable(`Payment ${input.paymentId} does not exist`, 'PaymentNotFound');
  if (payment.status === 'processed' || payment.status === 'failed') {
    return {
      transferId: payment.gatewayReference ?? null,
      status: payment.status === 'processed' ? 'settled' : 'failed',
      failureReason: payment.failureReason ?? null,
      settledAt: payment.paidAt?.toISOString() ?? null,
      method: payment.paymentMethod ?? null,
    };
  }
  const account = await em.findOne(
    BeneficiaryBankAccount,
    { beneficiary: payment.beneficiary, validationStatus: 'validated' },
    { populate: ['bank'], orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  let transfer: TransferView;
  try {
    transfer = await deps.gateway.submitTransfer(payment.id, {
      reference: payment.id,
      amount_cents: payment.amountCents.toString(),
      currency: payment.currency,
      concept: payment.payable.concept ?? null,
      beneficiary: {
        name: payment.beneficiary.name,
        identifier_type: payment.beneficiary.identifierType,
        identifier_number: payment.beneficiary.identifierNumber,
      },
      account: account
        ? { bank_code: account.bank.code, account_number: account.accountNumber, account_type: account.accountType }
        : null,
    });
  } catch (error) {
    if (error instanceof TransferRefused)
      return {
        transferId: null,
        status: 'failed',
        failureReason: `${error.message} (${error.code})`,
        settledAt: null,
        method: null,
      };
    throw error;
  }
  await markSubmitted(deps.orm, {
    companyId: input.companyId,
    paymentId: payment.id,
    transferId: transfer.id,
    submittedAt: new Date().toISOString(),
  });
  return toState(transfer);
}

/** Where the gateway says the transfer stands; a transfer the gateway does not know has failed. */
export async function checkTransfer(deps: GatewayDeps, input: { transferId: string }): Promise<TransferState> {
  const transfer = await deps.gateway.getTransfer(input.transferId);
  if (!transfer)
    return {
      transferId: input.transferId,
      status: 'failed',
      failureReason: 'The gateway does not know this transfer',
      settledAt: null,
      method: null,
    };
  return toState(transfer);
}
