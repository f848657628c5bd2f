import { isObject } from '../../platform/json.ts';
// What the ERP answered to `document.accounted`, read strictly: a value the service cannot store (U+0000, which
// PostgreSQL text refuses) or that is not the documented type makes the answer unreadable, which is retried.

/** A 200 that registers: the ERP's id of the voucher and its consecutive (null until the ERP assigns one). */
export type ErpRegistration = { erpInvoiceId: string; invoiceReference: string | null };

/** A 422 in the receiver-error shape: the accounting fails with the ERP's code and message, shown to the customer. */
export type ErpRejection = { code: string; message: string };

export type Reading<T> = { ok: true; value: T } | { ok: false; error: string };

/** The longest rejection code stored (`accounting_entries.failure_code`); codes are short snake_case tokens. */
const MAX_CODE_LENGTH = 255;

const storable = (value: unknown): value is string => typeof value === 'string' && !value.includes('\0');
/** Spec rule 1: `erp_invoice_id` a non-empty string; `invoice_reference` a string or null (absent reads as null). */
export function readRegistration(body: unknown): Reading<ErpRegistration> {
  if (!isObject(body)) return { ok: false, error: 'The answer is not a JSON object' };
  const { erp_invoice_id: id, invoice_reference: consecutive = null } = body;
  if (id === undefined || id === null || id === '') return { ok: false, error: 'The answer has no erp_invoice_id' };
  if (!storable(id)) return { ok: false, error: 'erp_invoice_id is not a string without U+0000' };
  if (consecutive !== null && !storable(consecutive))
    return { ok: false, error: 'invoice_reference is neither null nor a string without U+0000' };
  return { ok: true, value: { erpInvoiceId: id, invoiceReference: consecutive } };
}

/** Spec rule 2: `{ error: { code, message } }` with a non-empty code; anything else is a generic failure (rule 3). */
export function readRejection(body: unknown): Reading<ErpRejection> {
  const error = isObject(body) ? body.error : undefined;
  if (!isObject(error)) return { ok: false, error: 'The 422 answer is not { error: { code, message } }' };
  const { code, message } = error;
  if (!storable(code) || code === '' || code.length > MAX_CODE_LENGTH)
    return {
      ok: false,
      error: `The 422 answer's error.code is not a string of 1 to ${MAX_CODE_LENGTH} characters without U+0000`,
    };
  if (!storable(message)) return { ok: false, error: "The 422 answer's error.message is not a string without U+0000" };
  return { ok: true, value: { code, message } };
}

/** True when a parsed JSON value holds U+0000 in a key or string, which `jsonb` cannot store. */
export function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (Array.isArray(value)) return value.some(holdsNul);
  if (isObject(value)) return Object.entries(value).some(([key, item]) => key.includes('\0') || holdsNul(item));
  return false;
}
