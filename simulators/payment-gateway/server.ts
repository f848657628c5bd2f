// A payment gateway, for the embedded default and the tests: it takes transfers (once per Idempotency-Key) to an
// account, alone or several at once (a bulk transfer, each under its own key), keeps each one `processing` until it is
// checked, then settles or fails it. What happens to a transfer is steered per payment reference or per amount (so
// tests sharing one gateway never steer each other's payments): settle, fail, hold (stay processing until told
// otherwise), or refuse at submission; `after_checks` delays the outcome.
import { failure, header, reply, serveJson, type SimulatorReply, type SimulatorRequest } from '../http.ts';
import { isObject } from '../../platform/json.ts';

export const TRANSFER_OUTCOMES = ['settle', 'fail', 'hold', 'refuse'] as const;
export type TransferOutcome = (typeof TRANSFER_OUTCOMES)[number];

export interface OutcomeRule {
  outcome: TransferOutcome;
  /** How many status checks still answer `processing` before the outcome shows (default 0). */
  afterChecks?: number;
  /** The failure or refusal reason given to the payer. */
  reason?: string;
}

/** A transfer as the gateway holds it. */
export interface Transfer {
  id: string;
  idempotencyKey: string;
  /** The payer's reference for the transfer (the payment reference). */
  reference: string;
  amountCents: string;
  currency: string;
  beneficiary: Record<string, unknown>;
  account: Record<string, unknown>;
  concept: string | null;
  status: 'processing' | 'settled' | 'failed';
  failureReason: string | null;
  createdAt: string;
  settledAt: string | null;
  checks: number;
  /** The body as first sent: a replay with the same key must send the same. */
  fingerprint: string;
}

export interface PaymentGatewaySimulator {
  url: string;
  transfers: Map<string, Transfer>;
  /** Steers the transfers of one payment reference, or of one amount in cents. */
  steer(key: { reference?: string; amountCents?: string }, rule: OutcomeRule): void;
  stop: () => Promise<void>;
}

const DEFAULT_RULE: OutcomeRule = { outcome: 'settle', afterChecks: 0 };

function view(transfer: Transfer) {
  return {
    id: transfer.id,
    reference: transfer.reference,
    status: transfer.status,
    amount_cents: transfer.amountCents,
    currency: transfer.currency,
    failure_reason: transfer.failureReason,
    method: 'bank_transfer',
    created_at: transfer.createdAt,
    settled_at: transfer.settledAt,
  };
}

/** Checks an outcome rule from the control API; throws a RangeError naming what is wrong. */
function toRule(body: Record<string, unknown>): OutcomeRule {
  const { outcome, after_checks: afterChecks, reason } = body;
  if (!TRANSFER_OUTCOMES.includes(outcome as TransferOutcome))
    throw new RangeError(`outcome must be one of ${TRANSFER_OUTCOMES.join(', ')}`);
  if (afterChecks !== undefined && !(Number.isInteger(afterChecks) && (afterChecks as number) >= 0))
    throw new RangeError('after_checks must be a whole number');
  if (reason !== undefined && typeof reason !== 'string') throw new RangeError('reason must be a string');
  return {
    outcome: outcome as TransferOutcome,
    afterChecks: afterChecks as number | undefined,
    reason: reason as string | undefined,
  };
}

/** Starts the gateway on 127.0.0.1 (a free port unless one is given). */
export async function startPaymentGatewaySimulator(
  options: { port?: number; host?: string } = {},
): Promise<PaymentGatewaySimulator> {
  const transfers = new Map<string, Transfer>();
  const byKey = new Map<string, Transfer>();
  /** Bulk transfers by their idempotency key, as answered. */
  const bulks = new Map<string, { id: string; reference: string; transfers: unknown[] }>();
  const byReference = new Map<string, OutcomeRule>();
  const byAmount = new Map<string, OutcomeRule>();
  let sequence = 0;

  const ruleFor = (reference: string, amountCents: string): OutcomeRule =>
    byReference.get(reference) ?? byAmount.get(amountCents) ?? DEFAULT_RULE;

  const steer = (key: { reference?: string; amountCents?: string }, rule: OutcomeRule) => {
    if (key.reference) byReference.set(key.reference, rule);
    else if (key.amountCents) byAmount.set(key.amountCents, rule);
    else throw new RangeError('Steer by reference or by amount_cents');
  };

  /** Checks one transfer request: the reason it is refused, or null. */
  const invalid = (body: Record<string, unknown>): SimulatorReply | null => {
    const { reference, amount_cents: amountCents, currency, beneficiary, account } = body;
    if (typeof reference !== 'string' || reference === '')
      return failure(400, 'invalid_request', 'reference is required');
    if (typeof amountCents !== 'string' || !/^[1-9]\d*$/.test(amountCents))
      return failure(400, 'invalid_request', 'amount_cents must be a positive integer, as a string');
    if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
      return failure(400, 'invalid_request', 'currency must be an ISO 4217 code');
    if (!isObject(beneficiary) || typeof beneficiary.name !== 'string')
      return failure(400, 'invalid_request', 'beneficiary.name is required');
    // A gateway pays to an account: it refuses a transfer that names none.
    if (!isObject(account) || typeof account.account_number !== 'string' || typeof account.bank_code !== 'string')
      return failure(400, 'account_required', 'account (bank_code, account_number, account_type) is required');
    return null;
  };

  /** Takes one transfer under its idempotency key: the same key again answers the same transfer. */
  const take = (key: string, body: Record<string, unknown>): SimulatorReply => {
    const refused = invalid(body);
    if (refused) return refused;
    // Checked just above.
    const {
      reference,
      amount_cents: amountCents,
      currency,
      beneficiary,
      account,
      concept,
    } = body as {
      reference: string;
      amount_cents: string;
      currency: string;
      beneficiary: Record<string, unknown>;
      account: Record<string, unknown>;
      concept?: unknown;
    };
    const fingerprint = JSON.stringify(body);
    const earlier = byKey.get(key);
    if (earlier) {
      if (earlier.fingerprint !== fingerprint)
        return failure(422, 'idempotency_key_reused', 'This Idempotency-Key was used for a different transfer');
      return reply(200, view(earlier));
    }
    const rule = ruleFor(reference, amountCents);
    if (rule.outcome === 'refuse')
      return failure(422, 'transfer_refused', rule.reason ?? 'The gateway refused the transfer');
    const transfer: Transfer = {
      id: `trf_${String(++sequence).padStart(8, '0')}`,
      idempotencyKey: key,
      reference,
      amountCents,
      currency,
      beneficiary,
      account,
      concept: typeof concept === 'string' ? concept : null,
      status: 'processing',
      failureReason: null,
      createdAt: new Date().toISOString(),
      settledAt: null,
      checks: 0,
      fingerprint,
    };
    transfers.set(transfer.id, transfer);
    byKey.set(key, transfer);
    return reply(201, view(transfer));
  };

  const submit = (request: SimulatorRequest): SimulatorReply => {
    const key = header(request.headers, 'idempotency-key');
    if (!key) return failure(400, 'idempotency_key_required', 'Send an Idempotency-Key header');
    if (!isObject(request.json)) return failure(400, 'invalid_request', 'The body must be a JSON object');
    return take(key, request.json);
  };

  /**
   * A bulk transfer: several transfers in one request, each under its own idempotency key (a transfer the gateway
   * already holds is answered, not made again); the bulk one under the request's key.
   */
  const submitBulk = (request: SimulatorRequest): SimulatorReply => {
    const key = header(request.headers, 'idempotency-key');
    if (!key) return failure(400, 'idempotency_key_required', 'Send an Idempotency-Key header');
    const body = request.json;
    if (
      !isObject(body) ||
      typeof body.reference !== 'string' ||
      !Array.isArray(body.transfers) ||
      body.transfers.length === 0
    )
      return failure(400, 'invalid_request', 'reference and a non-empty transfers array are required');
    const earlier = bulks.get(key);
    if (earlier) return reply(200, earlier);
    const items = body.transfers as unknown[];
    for (const item of items) {
      if (!isObject(item) || typeof item.idempotency_key !== 'string')
        return failure(400, 'invalid_request', 'Each transfer needs its idempotency_key');
      const refused = invalid(item);
      if (refused) return refused;
    }
    const answered = items.map((item) => {
      const { idempotency_key: itemKey, ...transfer } = item as Record<string, unknown>;
      const result = take(itemKey as string, transfer);
      const reference = transfer.reference as string;
      return result.status < 300
        ? { ...(result.body as Record<string, unknown>), reference }
        : {
            id: null,
            reference,
            status: 'failed',
            failure_reason: (result.body as { error: { message: string } }).error.message,
          };
    });
    const bulk = { id: `blk_${String(++sequence).padStart(8, '0')}`, reference: body.reference, transfers: answered };
    bulks.set(key, bulk);
    return reply(201, bulk);
  };

  // A transfer's outcome shows when it is checked, so a test can steer a payment after creating it.
  const check = (id: string): SimulatorReply => {
    const transfer = transfers.get(id);
    if (!transfer) return failure(404, 'transfer_not_found', `No transfer ${id}`);
    transfer.checks += 1;
    if (transfer.status === 'processing') {
      const rule = ruleFor(transfer.reference, transfer.amountCents);
      if (rule.outcome !== 'hold' && rule.outcome !== 'refuse' && transfer.checks > (rule.afterChecks ?? 0)) {
        transfer.status = rule.outcome === 'settle' ? 'settled' : 'failed';
        transfer.settledAt = new Date().toISOString();
        if (rule.outcome === 'fail')
          transfer.failureReason = rule.reason ?? 'The beneficiary bank rejected the transfer';
      }
    }
    return reply(200, view(transfer));
  };

  const control = (request: SimulatorRequest): SimulatorReply => {
    const [, action] = request.segments;
    if (request.method === 'GET' && action === 'transfers')
      return reply(200, {
        transfers: [...transfers.values()].map((transfer) => ({ ...view(transfer), account: transfer.account })),
      });
    if (request.method === 'GET' && action === 'bulk-transfers')
      return reply(200, { bulk_transfers: [...bulks.values()] });
    if (request.method === 'POST' && action === 'outcomes') {
      const body = request.json;
      if (!isObject(body)) return failure(400, 'invalid_request', 'The body must be a JSON object');
      try {
        const rule = toRule(body);
        steer(
          {
            reference: typeof body.reference === 'string' ? body.reference : undefined,
            amountCents:
              typeof body.amount_cents === 'string' || typeof body.amount_cents === 'number'
                ? String(body.amount_cents)
                : undefined,
          },
          rule,
        );
        return reply(200, { ok: true });
      } catch (error) {
        return failure(400, 'invalid_request', (error as Error).message);
      }
    }
    return failure(
      404,
      'not_found',
      'Control routes: POST /_control/outcomes, GET /_control/transfers, GET /_control/bulk-transfers',
    );
  };

  const server = await serveJson((request) => {
    const [first, second, ...rest] = request.segments;
    if (first === '_control') return control(request);
    if (first === 'transfers' && second === undefined && request.method === 'POST') return submit(request);
    if (first === 'bulk-transfers' && second === undefined && request.method === 'POST') return submitBulk(request);
    if (first === 'transfers' && second !== undefined && rest.length === 0 && request.method === 'GET')
      return check(second);
    return failure(404, 'not_found', 'Routes: POST /transfers, POST /bulk-transfers, GET /transfers/{id}');
  }, options);

  return { url: server.url, transfers, steer, stop: server.stop };
}
