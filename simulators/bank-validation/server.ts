// A bank-account validation service, for the embedded default and the tests: it takes a validation request (once
// per Idempotency-Key), keeps it `processing` until it is checked, then answers valid, invalid or error. The
// outcome is steered per account number (tests sharing one service never steer each other's accounts); `hold`
// keeps it processing and `after_checks` delays the answer.
import { failure, header, reply, serveJson, type SimulatorReply, type SimulatorRequest } from '../http.ts';
import { isObject } from '../../platform/json.ts';

export const VALIDATION_OUTCOMES = ['valid', 'invalid', 'error', 'hold'] as const;
export type ValidationOutcome = (typeof VALIDATION_OUTCOMES)[number];

export interface ValidationRule {
  outcome: ValidationOutcome;
  afterChecks?: number;
  reason?: string;
}

export interface ValidationRequest {
  id: string;
  idempotencyKey: string;
  country: string;
  bankCode: string;
  accountNumber: string;
  accountType: string;
  holderName: string | null;
  status: 'processing' | 'valid' | 'invalid' | 'error';
  reason: string | null;
  checks: number;
}

export interface BankValidationSimulator {
  url: string;
  validations: Map<string, ValidationRequest>;
  /** Steers the validations of one account number. */
  steer(accountNumber: string, rule: ValidationRule): void;
  stop: () => Promise<void>;
}

const DEFAULT_RULE: ValidationRule = { outcome: 'valid', afterChecks: 0 };
const DEFAULT_REASONS: Record<'invalid' | 'error', string> = {
  invalid: 'The account does not exist or does not belong to the holder',
  error: 'The bank did not answer the validation request',
};

function view(validation: ValidationRequest) {
  return {
    id: validation.id,
    status: validation.status,
    reason: validation.reason,
    account_number: validation.accountNumber,
    bank_code: validation.bankCode,
  };
}

function toRule(body: Record<string, unknown>): ValidationRule {
  const { outcome, after_checks: afterChecks, reason } = body;
  if (!VALIDATION_OUTCOMES.includes(outcome as ValidationOutcome))
    throw new RangeError(`outcome must be one of ${VALIDATION_OUTCOMES.join(', ')}`);
  if (afterChecks !== undefined && !(Number.isInteger(afterChecks) && (afterChecks as number) >= 0))
    throw new RangeError('after_checks must be a whole number');
  if (reason !== undefined && typeof reason !== 'string') throw new RangeError('reason must be a string');
  return {
    outcome: outcome as ValidationOutcome,
    afterChecks: afterChecks as number | undefined,
    reason: reason as string | undefined,
  };
}

/** Starts the service on 127.0.0.1 (a free port unless one is given). */
export async function startBankValidationSimulator(
  options: { port?: number; host?: string } = {},
): Promise<BankValidationSimulator> {
  const validations = new Map<string, ValidationRequest>();
  const byKey = new Map<string, ValidationRequest>();
  const rules = new Map<string, ValidationRule>();
  let sequence = 0;

  const steer = (accountNumber: string, rule: ValidationRule) => {
    rules.set(accountNumber, rule);
  };

  const submit = (request: SimulatorRequest): SimulatorReply => {
    const key = header(request.headers, 'idempotency-key');
    if (!key) return failure(400, 'idempotency_key_required', 'Send an Idempotency-Key header');
    const body = request.json;
    if (!isObject(body)) return failure(400, 'invalid_request', 'The body must be a JSON object');
    const {
      country,
      bank_code: bankCode,
      account_number: accountNumber,
      account_type: accountType,
      holder_name: holderName,
    } = body;
    if (country !== 'COL' && country !== 'MEX') return failure(400, 'invalid_request', 'country must be COL or MEX');
    if (typeof bankCode !== 'string' || typeof accountNumber !== 'string' || !/^\d+$/.test(accountNumber))
      return failure(400, 'invalid_request', 'bank_code and account_number (digits) are required');
    const earlier = byKey.get(key);
    if (earlier) return reply(200, view(earlier));
    const validation: ValidationRequest = {
      id: `val_${String(++sequence).padStart(8, '0')}`,
      idempotencyKey: key,
      country,
      bankCode,
      accountNumber,
      accountType: typeof accountType === 'string' ? accountType : 'savings',
      holderName: typeof holderName === 'string' ? holderName : null,
      status: 'processing',
      reason: null,
      checks: 0,
    };
    validations.set(validation.id, validation);
    byKey.set(key, validation);
    return reply(202, view(validation));
  };

  const check = (id: string): SimulatorReply => {
    const validation = validations.get(id);
    if (!validation) return failure(404, 'validation_not_found', `No validation ${id}`);
    validation.checks += 1;
    if (validation.status === 'processing') {
      const rule = rules.get(validation.accountNumber) ?? DEFAULT_RULE;
      if (rule.outcome !== 'hold' && validation.checks > (rule.afterChecks ?? 0)) {
        validation.status = rule.outcome;
        validation.reason = rule.outcome === 'valid' ? null : (rule.reason ?? DEFAULT_REASONS[rule.outcome]);
      }
    }
    return reply(200, view(validation));
  };

  const control = (request: SimulatorRequest): SimulatorReply => {
    const [, action] = request.segments;
    if (request.method === 'GET' && action === 'validations')
      return reply(200, { validations: [...validations.values()].map(view) });
    if (request.method === 'POST' && action === 'outcomes') {
      const body = request.json;
      if (!isObject(body) || typeof body.account_number !== 'string')
        return failure(400, 'invalid_request', 'Send { account_number, outcome, after_checks?, reason? }');
      try {
        steer(body.account_number, toRule(body));
        return reply(200, { ok: true });
      } catch (error) {
        return failure(400, 'invalid_request', (error as Error).message);
      }
    }
    return failure(404, 'not_found', 'Control routes: POST /_control/outcomes, GET /_control/validations');
  };

  const server = await serveJson((request) => {
    const [first, second, ...rest] = request.segments;
    if (first === '_control') return control(request);
    if (first === 'validations' && second === undefined && request.method === 'POST') return submit(request);
    if (first === 'validations' && second !== undefined && rest.length === 0 && request.method === 'GET')
      return check(second);
    return failure(404, 'not_found', 'Routes: POST /validations, GET /validations/{id}');
  }, options);

  return { url: server.url, validations, steer, stop: server.stop };
}
