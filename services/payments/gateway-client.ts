import { z } from 'zod';
import { postIdempotent, readJson, serviceUrl, SERVICE_TIMEOUT_MS } from '../../platform/outside-http.ts';

/** A transfer as the gateway reports it. */
export const TransferView = z.object({
  id: z.string().min(1),
  status: z.enum(['processing', 'settled', 'failed']),
  failure_reason: z.string().nullable().optional(),
  settled_at: z.string().nullable().optional(),
  method: z.string().nullable().optional(),
});
export type TransferView = z.output<typeof TransferView>;

export interface TransferRequest {
  /** The payer's reference: our payment reference. */
  reference: string;
  /** Integer cents as a string: amounts never go through floats. */
  amount_cents: string;
  currency: string;
  concept: string | null;
  beneficiary: { name: string; identifier_type: string; identifier_number: string };
  /** A validated account of the beneficiary: nothing is ever sent without one. */
  account: { bank_code: string; account_number: string; account_type: string };
}

/** The gateway refused the transfer for good (a 4xx answer): retrying the same request cannot succeed. */
export class TransferRefused extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const ErrorBody = z.object({ error: z.object({ code: z.string(), message: z.string() }) });

/**
 * One bulk transfer as the gateway reports it: each transfer of it, named by its reference (our payment); one the
 * gateway refused has no id, and says why.
 */
export const BulkTransferView = z.object({
  id: z.string().min(1),
  transfers: z.array(TransferView.extend({ id: z.string().min(1).nullable(), reference: z.string() })),
});
export type BulkTransferView = z.output<typeof BulkTransferView>;

/** A refusal the gateway answered (4xx), or an error to retry. */
function answerError(status: number, body: unknown): Error {
  if (status >= 400 && status < 500 && status !== 408 && status !== 429) {
    const refusal = ErrorBody.safeParse(body);
    return new TransferRefused(
      refusal.success ? refusal.data.error.code : `http_${status}`,
      refusal.success ? refusal.data.error.message : `The gateway answered HTTP ${status}`,
    );
  }
  return new Error(`The payment gateway answered HTTP ${status}`);
}

/** The payment gateway over fetch: submits transfers (idempotent per key) and reads their status. */
export function paymentGatewayClient(baseUrl: string) {
  const url = serviceUrl(baseUrl, 'PAYMENT_GATEWAY_URL');
  return {
    /** Submits a transfer; the same idempotency key always names the same transfer, so a retried call never pays twice. */
    async submitTransfer(idempotencyKey: string, request: TransferRequest): Promise<TransferView> {
      const response = await postIdempotent(url('/transfers'), idempotencyKey, request);
      const body = await readJson(response);
      if (response.status === 200 || response.status === 201) return TransferView.parse(body);
      throw answerError(response.status, body);
    },
    /**
     * Submits several transfers as one bulk transfer (a batch). Each transfer keeps its own idempotency key, its
     * payment's reference: a payment the gateway already holds is not paid twice, inside a batch or not.
     */
    async submitBulk(
      idempotencyKey: string,
      request: { reference: string; transfers: (TransferRequest & { idempotency_key: string })[] },
    ): Promise<BulkTransferView> {
      const response = await postIdempotent(url('/bulk-transfers'), idempotencyKey, request);
      const body = await readJson(response);
      if (response.status === 200 || response.status === 201) return BulkTransferView.parse(body);
      throw answerError(response.status, body);
    },
    /** The transfer's current status; null when the gateway does not know it. */
    async getTransfer(transferId: string): Promise<TransferView | null> {
      const response = await fetch(url(`/transfers/${encodeURIComponent(transferId)}`), {
        signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
      });
      const body = await readJson(response);
      if (response.status === 404) return null;
      if (response.status === 200) return TransferView.parse(body);
      throw new Error(`The payment gateway answered HTTP ${response.status}`);
    },
  };
}
