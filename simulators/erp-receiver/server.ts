// An integrator's ERP receiver, for the embedded default and the tests: it verifies each webhook's signature,
// registers `document.accounted` vouchers once per document reference, acknowledges other events once per
// delivery id, and can be told to misbehave (reject, fail, stall, answer garbage) from code or over HTTP.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { guarded, listen } from '../http.ts';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type ServerResponse,
} from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { isObject } from '../../platform/json.ts';

export interface ErpReceiverOptions {
  port?: number;
  host?: string;
  /** The subscription's signing secret. */
  secret: string;
  /** Serve https with this certificate (PEM), as production receivers must. */
  tls?: { cert: string | Buffer; key: string | Buffer };
}

export const ERP_RECEIVER_MODES = ['ok', 'reject', 'fail', 'slow', 'garbage', 'missing-id', 'no-consecutive'] as const;
export type ErpReceiverMode = (typeof ERP_RECEIVER_MODES)[number];

export interface BehaveOptions {
  /** How many signed requests get this mode before the receiver returns to `ok`; forever when absent. */
  times?: number;
  /** For `slow`: how long to wait before answering (default 2000). */
  delayMs?: number;
  /** For `reject`: the 422 error code and message. */
  code?: string;
  message?: string;
}

/** One webhook request as it arrived (control requests are not recorded). */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** The parsed body, or null when it is not JSON. */
  json: unknown;
  receivedAt: string;
  event: string | null;
  deliveryId: string | null;
  signatureValid: boolean;
  /** What was answered; null while a `slow` answer is pending. */
  answer: { status: number; body: string } | null;
}

/** A voucher registered in the simulated ERP; `times` counts the deliveries of its reference that were processed. */
export interface RegisteredVoucher {
  erp_invoice_id: string;
  invoice_reference: string | null;
  times: number;
}

export interface ErpReceiver {
  url: string;
  received: ReceivedRequest[];
  /** Document reference → the voucher registered for it. */
  registered: Map<string, RegisteredVoucher>;
  /** Deliveries of events other than `document.accounted` whose delivery id had already been processed. */
  readonly duplicates: number;
  behave(mode: ErpReceiverMode, options?: BehaveOptions): void;
  reset(): void;
  stop: () => Promise<void>;
}

interface Reply {
  status: number;
  body: string;
  contentType: string;
}

interface Behaviour {
  mode: ErpReceiverMode;
  remaining: number | null;
  delayMs: number;
  code: string;
  message: string;
}

const json = (status: number, body: unknown): Reply => ({
  status,
  body: JSON.stringify(body),
  contentType: 'application/json',
});
const error = (status: number, code: string, message: string) => json(status, { error: { code, message } });

const header = (headers: IncomingHttpHeaders, name: string): string | null => {
  const value = headers[name];
  return typeof value === 'string' ? value : null;
};

const parseJson = (raw: string): unknown => {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return null;
  }
};

/** True when `signature` is the lowercase hex HMAC-SHA256 of the raw body, compared in constant time. */
function verifySignature(secret: string, rawBody: Buffer, signature: string | null): boolean {
  const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
  const given = Buffer.from(signature ?? '', 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const defaultBehaviour = (): Behaviour => ({
  mode: 'ok',
  remaining: null,
  delayMs: 2000,
  code: 'erp_rejected',
  message: 'The ERP rejected the voucher',
});

/** Checks behave options (from code or the control API) and turns them into a behaviour; throws a RangeError when invalid. */
function toBehaviour(mode: unknown, options: BehaveOptions): Behaviour {
  if (!ERP_RECEIVER_MODES.includes(mode as ErpReceiverMode))
    throw new RangeError(`mode must be one of ${ERP_RECEIVER_MODES.join(', ')}`);
  const { times, delayMs, code, message } = options;
  if (times !== undefined && !(Number.isInteger(times) && times > 0))
    throw new RangeError('times must be a positive integer');
  if (delayMs !== undefined && !(Number.isFinite(delayMs) && delayMs >= 0))
    throw new RangeError('delayMs must be a number of milliseconds');
  if ((code !== undefined && typeof code !== 'string') || (message !== undefined && typeof message !== 'string'))
    throw new RangeError('code and message must be strings');
  const defaults = defaultBehaviour();
  return {
    mode: mode as ErpReceiverMode,
    remaining: times ?? null,
    delayMs: delayMs ?? defaults.delayMs,
    code: code ?? defaults.code,
    message: message ?? defaults.message,
  };
}

/** Starts the receiver on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function startErpReceiver(options: ErpReceiverOptions): Promise<ErpReceiver> {
  const received: ReceivedRequest[] = [];
  const registered = new Map<string, RegisteredVoucher>();
  const processedDeliveries = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();
  let duplicates = 0;
  let lastErpId = 0;
  let lastConsecutive = 0;
  let behaviour = defaultBehaviour();

  const behave = (mode: ErpReceiverMode, behaveOptions: BehaveOptions = {}) => {
    behaviour = toBehaviour(mode, behaveOptions);
  };
  const reset = () => {
    received.length = 0;
    registered.clear();
    processedDeliveries.clear();
    duplicates = lastErpId = lastConsecutive = 0;
    behaviour = defaultBehaviour();
  };
  // Each signed request uses up one of the `times` the current mode was set for.
  const takeBehaviour = (): Behaviour => {
    const current = behaviour;
    if (current.remaining !== null && --current.remaining === 0) behaviour = defaultBehaviour();
    return current;
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve();
      }, ms);
      timers.add(timer);
    });

  // Spec rule 4: a reference registers once; repeats answer the earlier values.
  const account = (body: Record<string, unknown>, mode: ErpReceiverMode): Reply => {
    const data = body.data;
    const reference = isObject(data) ? data.reference : undefined;
    if (typeof reference !== 'string' || reference === '')
      return error(422, 'invalid_payload', 'data.reference is required');
    let voucher = registered.get(reference);
    if (!voucher) {
      voucher = {
        erp_invoice_id: `ERP-${String(++lastErpId).padStart(6, '0')}`,
        invoice_reference: mode === 'no-consecutive' ? null : `FC-${++lastConsecutive}`,
        times: 0,
      };
      registered.set(reference, voucher);
    }
    voucher.times += 1;
    if (mode === 'missing-id') return json(200, { invoice_reference: voucher.invoice_reference });
    return json(200, { erp_invoice_id: voucher.erp_invoice_id, invoice_reference: voucher.invoice_reference });
  };

  const acknowledge = (deliveryId: string | null): Reply => {
    if (deliveryId !== null) {
      if (processedDeliveries.has(deliveryId)) duplicates += 1;
      else processedDeliveries.add(deliveryId);
    }
    return json(200, { ok: true });
  };

  const answer = async (request: ReceivedRequest): Promise<Reply> => {
    if (request.method !== 'POST') return error(405, 'method_not_allowed', 'Webhooks are POST requests');
    if (!request.signatureValid) return error(401, 'invalid_signature', 'X-Service-Signature does not match the body');
    if (!isObject(request.json)) return error(400, 'invalid_body', 'The body is not a JSON object');
    const { mode, delayMs, code, message } = takeBehaviour();
    if (mode === 'reject') return error(422, code, message);
    if (mode === 'fail') return error(500, 'erp_unavailable', 'The ERP is not answering');
    // The ERP does its work before a slow or garbled answer, as when a reply is lost: a retry must find it registered.
    const reply =
      request.event === 'document.accounted' ? account(request.json, mode) : acknowledge(request.deliveryId);
    if (mode === 'slow') await sleep(delayMs);
    if (mode === 'garbage' && reply.status === 200)
      return { status: 200, body: '<html><body>Voucher saved</body></html>', contentType: 'text/html' };
    return reply;
  };

  const control = (method: string, path: string, raw: string): Reply => {
    if (method === 'GET' && path === '/_control/received') {
      return json(200, { received, registered: Object.fromEntries(registered), duplicates, mode: behaviour.mode });
    }
    if (method === 'POST' && path === '/_control/reset') {
      reset();
      return json(200, { ok: true });
    }
    if (method === 'POST' && path === '/_control/behave') {
      const body = parseJson(raw);
      if (!isObject(body)) return error(400, 'invalid_request', 'The body must be a JSON object');
      try {
        behaviour = toBehaviour(body.mode, body as BehaveOptions);
      } catch (cause) {
        return error(400, 'invalid_request', (cause as Error).message);
      }
      return json(200, { mode: behaviour.mode, times: behaviour.remaining });
    }
    return error(
      404,
      'not_found',
      'Control routes: GET /_control/received, POST /_control/behave, POST /_control/reset',
    );
  };

  const handle = async (request: IncomingMessage, body: Buffer, response: ServerResponse) => {
    const method = request.method ?? '';
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    const raw = body.toString('utf8');
    let reply: Reply;
    if (path.startsWith('/_control/')) {
      reply = control(method, path, raw);
    } else {
      const parsed = parseJson(raw);
      const record: ReceivedRequest = {
        method,
        path,
        headers: request.headers,
        rawBody: raw,
        json: parsed,
        receivedAt: new Date().toISOString(),
        event:
          header(request.headers, 'x-service-event') ??
          (isObject(parsed) && typeof parsed.event === 'string' ? parsed.event : null),
        deliveryId: header(request.headers, 'x-service-delivery-id'),
        signatureValid: verifySignature(options.secret, body, header(request.headers, 'x-service-signature')),
        answer: null,
      };
      received.push(record);
      reply = await answer(record);
      record.answer = { status: reply.status, body: reply.body };
    }
    response.writeHead(reply.status, {
      'content-type': reply.contentType,
      'content-length': String(Buffer.byteLength(reply.body)),
    });
    response.end(reply.body);
  };

  const onRequest: RequestListener = guarded(handle);
  const server = options.tls
    ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }, onRequest)
    : createServer(onRequest);

  const running = await listen(server, options);
  return {
    url: running.url,
    received,
    registered,
    get duplicates() {
      return duplicates;
    },
    behave,
    reset,
    stop: () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return running.stop();
    },
  };
}
