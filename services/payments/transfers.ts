import { Refusal } from '../../platform/refusal.ts';
import { BeneficiaryBankAccount } from '../../db/beneficiaries/bank-account.entity.ts';
import { Document } from '../../db/documents/document.entity.ts';
import { companyEm, type Orm } from '../../db/orm.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import type { TransferState } from './payments.ts';
import { markSubmitted } from './payments.ts';
import { cancelPayment, satCancellationReason } from './cancel-payment.ts';
import {
  TransferRefused,
  type TransferRequest,
  type TransferView,
  type paymentGatewayClient,
} from './gateway-client.ts';

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

/** A payment that cannot go to the gateway yet: its beneficiary has no validated bank account. */
export interface Waiting {
  waiting: string;
}

/** Why no account of the beneficiary can be paid to, naming each account and where its validation stands. */
function waitingReason(beneficiary: string, accounts: BeneficiaryBankAccount[]): string {
  if (accounts.length === 0)
    return `${beneficiary} has no bank account: register one (POST /beneficiaries/{reference}/bank-accounts, or ops bank-accounts add)`;
  const states = accounts.map(
    (account) =>
      `…${account.accountNumber.slice(-4)} ${account.validationStatus}${account.validationMessage ? ` (${account.validationMessage})` : ''}`,
  );
  return `No bank account of ${beneficiary} is validated: ${states.join('; ')}`;
}

/**
 * Hands a payment to the gateway, with the payment reference as idempotency key (a retried call finds the same
 * transfer), to the beneficiary's first validated bank account; then marks it `in_process`. Without a validated
 * account nothing is sent: the payment says why it waits, and waits. A refusal by the gateway is an outcome (the
 * payment fails), not an error to retry.
 */
export async function submitPayment(
  deps: GatewayDeps,
  input: { companyId: string; paymentId: string },
): Promise<TransferState | Waiting> {
  const em = companyEm(deps.orm, input.companyId);
  const payment = await em.findOne(Payment, { id: input.paymentId }, { populate: ['beneficiary', 'payable'] });
  if (!payment) throw new Refusal('PaymentNotFound', `Payment ${input.paymentId} does not exist`);
  if (payment.status !== 'pending') return stateOf(payment);
  // Its document cancelled before SAT, it is not paid: its cancellation may have been cut short (its process is
  // cancelled right after the document), and nothing may leave meanwhile. It ends as that cancellation ends it.
  const document = payment.payable.document ? await em.findOne(Document, { id: payment.payable.document.id }) : null;
  if (document?.isCanceled) {
    const reason = satCancellationReason(
      document.fiscalReference ?? document.documentNumber,
      document.canceledAt?.toISOString() ?? 'an unknown date',
    );
    const canceled = await cancelPayment(deps, {
      companyId: input.companyId,
      paymentId: payment.id,
      reason,
      cause: 'document_canceled',
    });
    return { transferId: null, status: 'failed', failureReason: canceled.failureReason, settledAt: null, method: null };
  }
  const accounts = await em.find(
    BeneficiaryBankAccount,
    { beneficiary: payment.beneficiary },
    { populate: ['bank'], orderBy: { createdAt: 'asc', id: 'asc' } },
  );
  const account = accounts.find((candidate) => candidate.validationStatus === 'validated');
  if (!account) {
    const waiting = waitingReason(payment.beneficiary.name, accounts);
    payment.paymentGateway = {
      status: 'waiting_for_validated_account',
      pay_date: payment.payDate,
      reason: waiting,
    };
    await em.flush();
    return { waiting };
  }
  let transfer: TransferView;
  try {
    transfer = await deps.gateway.submitTransfer(payment.id, transferRequest(payment, account));
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

/** A payment already handed over (a retried activity): where it stood. */
function stateOf(payment: Payment): TransferState {
  const status = payment.status === 'processed' ? 'settled' : payment.status === 'failed' ? 'failed' : 'processing';
  return {
    transferId: payment.gatewayReference ?? null,
    status,
    failureReason: payment.failureReason ?? null,
    settledAt: payment.paidAt?.toISOString() ?? null,
    method: payment.paymentMethod ?? null,
  };
}

/** What the gateway is asked to pay: the payment, to the beneficiary's validated account. */
export function transferRequest(payment: Payment, account: BeneficiaryBankAccount): TransferRequest {
  return {
    reference: payment.id,
    amount_cents: payment.amountCents.toString(),
    currency: payment.currency,
    concept: payment.payable.concept ?? null,
    beneficiary: {
      name: payment.beneficiary.name,
      identifier_type: payment.beneficiary.identifierType,
      identifier_number: payment.beneficiary.identifierNumber,
    },
    account: { bank_code: account.bank.code, account_number: account.accountNumber, account_type: account.accountType },
  };
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
