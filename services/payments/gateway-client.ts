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
  account: { bank_code: string; account_number: string; account_type: string } | null;
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

/** The payment gateway over fetch: submits transfers (idempotent per key) and reads their status. */
export function paymentGatewayClient(baseUrl: string) {
  const url = serviceUrl(baseUrl, 'PAYMENT_GATEWAY_URL');
  return {
    /** Submits a transfer; the same idempotency key always names the same transfer, so a retried call never pays twice. */
    async submitTransfer(idempotencyKey: string, request: TransferRequest): Promise<TransferView> {
      const response = await postIdempotent(url('/transfers'), idempotencyKey, request);
      const body = await readJson(response);
      if (response.status === 200 || response.status === 201) return TransferView.parse(body);
      if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
        const refusal = ErrorBody.safeParse(body);
        throw new TransferRefused(
          refusal.success ? refusal.data.error.code : `http_${response.status}`,
          refusal.success ? refusal.data.error.message : `The gateway answered HTTP ${response.status}`,
        );
      }
      throw new Error(`The payment gateway answered HTTP ${response.status}`);
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
