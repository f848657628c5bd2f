import { z } from 'zod';
import { postIdempotent, readJson, serviceUrl, SERVICE_TIMEOUT_MS } from '../../platform/outside-http.ts';

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

/** The bank-account validation service over fetch: requests a validation (idempotent per key) and reads its outcome. */
export function bankValidationClient(baseUrl: string) {
  const url = serviceUrl(baseUrl, 'BANK_VALIDATION_URL');
  return {
    async requestValidation(idempotencyKey: string, request: ValidationRequest): Promise<ValidationView> {
      const response = await postIdempotent(url('/validations'), idempotencyKey, request);
      const body = await readJson(response);
      if (response.status >= 200 && response.status < 300) return ValidationView.parse(body);
      throw new Error(`The bank-validation service answered HTTP ${response.status}`);
    },
    /** The validation's current state; null when the service does not know it. */
    async getValidation(validationId: string): Promise<ValidationView | null> {
      const response = await fetch(url(`/validations/${encodeURIComponent(validationId)}`), {
        signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
      });
      const body = await readJson(response);
      if (response.status === 404) return null;
      if (response.status === 200) return ValidationView.parse(body);
      throw new Error(`The bank-validation service answered HTTP ${response.status}`);
    },
  };
}
