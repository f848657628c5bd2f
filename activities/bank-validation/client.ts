import { z } from 'zod';

/** A validation as the bank-validation service reports it. */
export const ValidationView = z.object({
  id: z.string().min(1),
  status: z.enum(['processing', 'valid', 'invalid', 'error']),
  reason: z.string().nullable().optional(),
});
export type ValidationView = z.output<typeof ValidationView>;

export interface ValidationRequest {
  country: string;
  bank_code: string;
  account_number: string;
  account_type: string;
  holder_name: string;
  holder_document_type: string;
  holder_document_number: string;
}

const TIMEOUT_MS = 10_000;

async function answer(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** The bank-account validation service over fetch: requests a validation (idempotent per key) and reads its outcome. */
export function bankValidationClient(baseUrl: string) {
  const url = (path: string) => {
    if (!baseUrl) throw new Error('BANK_VALIDATION_URL is not set');
    return `${baseUrl.replace(/\/$/, '')}${path}`;
  };
  return {
    async requestValidation(idempotencyKey: string, request: ValidationRequest): Promise<ValidationView> {
      const response = await fetch(url('/validations'), {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(request),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      const body = await answer(response);
      if (response.status >= 200 && response.status < 300) return ValidationView.parse(body);
      throw new Error(`The bank-validation service answered HTTP ${response.status}`);
    },
    /** The validation's current state; null when the service does not know it. */
    async getValidation(validationId: string): Promise<ValidationView | null> {
      const response = await fetch(url(`/validations/${encodeURIComponent(validationId)}`), { signal: AbortSignal.timeout(TIMEOUT_MS) });
      const body = await answer(response);
      if (response.status === 404) return null;
      if (response.status === 200) return ValidationView.parse(body);
      throw new Error(`The bank-validation service answered HTTP ${response.status}`);
    },
  };
}
