import { Refusal } from '../platform/refusal.ts';
import { ApiError } from './errors.ts';
import type { DocumentedError } from './route.ts';

/**
 * Every refusal the API answers, with its HTTP status and what it means: the routes answer refusals from it (whoever
 * threw them: a route, a service, a workflow), and the OpenAPI document lists each route's from it. A route may word a
 * description for itself (`refusals`' second argument).
 */
const REFUSALS = {
  // Documents and their flow.
  document_not_found: { status: 404, description: 'no document of the company has this reference' },
  step_not_found: { status: 404, description: 'no step of the company has this reference' },
  acting_user_not_found_in_company: { status: 400, description: 'acting_user_email is not a member of the company' },
  step_not_pending: {
    status: 409,
    description: 'the step is already resolved (or the user already acted): do not retry, query the current step again',
  },
  not_assigned: { status: 403, description: 'the acting user is not an assignee of the step' },
  invalid_decision: {
    status: 422,
    description: 'a value the step does not offer; in unrestricted tagging, a tag the company does not have',
  },
  unsupported_step: { status: 422, description: 'the step is not decided through this API (actionable false)' },
  // The voucher's hand-off.
  not_accounted: { status: 409, description: 'the document has no posted voucher to hand over' },
  already_registered: { status: 409, description: 'the ERP has already registered the voucher' },
  registration_in_progress: { status: 409, description: 'the voucher is being handed over right now' },
  awaiting_catalog: {
    status: 409,
    description: [
      'the ERP catalog still lacks a book account the voucher needs (`accounting.missing_catalog_entries`);',
      'it is handed over once the ERP syncs it',
    ].join(' '),
  },
  no_receiver: { status: 409, description: 'no webhook subscription of the company receives document.accounted' },
  awaiting_classification: {
    status: 409,
    description: 'the voucher waits for a person to decide the open step of the document',
  },
  awaiting_order_review: {
    status: 409,
    description: 'the voucher waits for a person to review the purchase order in the open step of the document',
  },
  voucher_held: { status: 409, description: 'the voucher is held; the message says why' },
  // Reception events.
  reception_events_not_supported_for_country: {
    status: 422,
    description: 'the company is not Colombian: RADIAN reception events exist only in Colombia',
  },
  claim_not_allowed_in_batch: {
    status: 422,
    description: 'event 031 (claim) in a batch: send it through POST /events/single with its concept and description',
  },
  // Beneficiaries and banks.
  beneficiary_not_found: { status: 404, description: 'no beneficiary of the company has this reference' },
  beneficiary_deleted: { status: 422, description: 'the beneficiary was deleted' },
  beneficiary_exists: {
    status: 409,
    description: [
      'the company already has a beneficiary with this identifier type and number;',
      '`reference` (in the body) is that beneficiary',
    ].join(' '),
  },
  invalid_identifier: {
    status: 422,
    description: [
      "the identifier is not one of its type, or its type is not one of the company's country;",
      '`field` (in the body) is `identifier_type` or `identifier_number`',
    ].join(' '),
  },
  bank_account_not_found: {
    status: 404,
    description: 'the beneficiary has no bank account with this reference (accounts are added with POST bank-accounts)',
  },
  bank_account_exists: {
    status: 409,
    description: 'the beneficiary already has another account with this bank and number',
  },
  bank_of_another_country: { status: 422, description: "the bank is a bank of another country than the company's" },
  file_not_found: { status: 404, description: 'no file of the company has this reference' },
  bank_not_found: { status: 404, description: 'no bank with this reference in the company country' },
  // Payments, advances and expenses.
  invalid_input: { status: 400, description: 'the reference is not a UUID' },
  payment_not_found: { status: 404, description: 'no payment of the company has this reference' },
  payable_not_found: { status: 404, description: 'no payable of the company has this reference' },
  beneficiary_mismatch: { status: 422, description: "the payable is not the beneficiary's" },
  currency_mismatch: { status: 422, description: "the currency is not the payable's" },
  payable_not_payable: { status: 422, description: 'the payable is already paid or canceled' },
  amount_exceeds_balance: {
    status: 422,
    description: 'the amount is more than the payable has left once processed and under-way payments are counted',
  },
  invalid_payable_type: { status: 422, description: 'an advance to an employee (payments to employees are payroll)' },
  document_canceled: {
    status: 422,
    description: "the payable's document was cancelled before the tax authority (SAT): it is not paid",
  },
  not_an_advance: { status: 422, description: 'the payment pays a supplier or payroll payable' },
  advance_not_paid: {
    status: 409,
    description: 'the advance is not processed: nothing was paid that could be crossed',
  },
  outstanding_out_of_range: {
    status: 422,
    description: "outstanding_amount_cents is above the advance's original amount",
  },
  // Fiscal synchronisation.
  company_not_found: {
    status: 422,
    description: [
      "the API key's company was removed while the request was under way",
      '(afterwards its keys no longer authenticate: 401)',
    ].join(' '),
  },
  sat_credentials_not_configured: { status: 422, description: 'Mexico: no CIEC registered for the company RFC' },
  sat_ciec_pending: { status: 422, description: 'Mexico: the CIEC is still being validated' },
  sat_ciec_invalid: {
    status: 422,
    description: 'Mexico: the CIEC is invalid or was rejected (also when the SAT provider refuses it)',
  },
  dian_automatic_sync_not_configured: {
    status: 403,
    description: "Colombia: no forwarding of the tax authority's e-mail",
  },
  dian_credentials_not_configured: {
    status: 422,
    description: 'Colombia: NIT or legal representative missing, or refused by DIAN',
  },
  dian_sync_window_empty: {
    status: 422,
    description: 'Colombia: the last sync was today, there is no new day to synchronise',
  },
  fiscal_sync_not_supported_for_country: { status: 422, description: 'the company country has no fiscal sync' },
  fiscal_sync_rate_limited: {
    status: 429,
    description: [
      'a sync was already started in the last hour (whatever its outcome);',
      '`retry_after_seconds` (and the Retry-After header) say when the next one is allowed',
    ].join(' '),
  },
  sat_provider_error: {
    status: 502,
    description:
      'Mexico: the SAT extraction provider refused to create the extraction for another reason than the CIEC',
  },
} as const satisfies Record<string, { status: number; description: string }>;

export type RefusalCode = keyof typeof REFUSALS;

/** The refusals a route answers, for its OpenAPI document; `step`: in the workflow steps' error shape. */
export function refusals(
  codes: readonly RefusalCode[],
  options: { shape?: 'step'; descriptions?: Partial<Record<RefusalCode, string>> } = {},
): DocumentedError[] {
  return codes.map((code) => ({
    code,
    status: REFUSALS[code].status,
    description: options.descriptions?.[code] ?? REFUSALS[code].description,
    ...(options.shape ? { shape: options.shape } : {}),
  }));
}

const isRefusalCode = (code: string): code is RefusalCode => Object.hasOwn(REFUSALS, code);

/**
 * A refusal as a route answers it: its status from the table, in the shape the route documents for it, its details in
 * the body (a `retry_after_seconds` also as the Retry-After header). Anything else is left as it is.
 */
export function answerOf(error: unknown, documented: readonly DocumentedError[] = []): unknown {
  if (!(error instanceof Refusal) || !isRefusalCode(error.code)) return error;
  const shape = documented.find((entry) => entry.code === error.code)?.shape;
  const retryAfter = error.details.retry_after_seconds;
  return new ApiError(REFUSALS[error.code].status, error.code, error.message, {
    shape,
    extras: { ...error.details },
    headers: typeof retryAfter === 'number' ? { 'retry-after': String(retryAfter) } : {},
  });
}
