import { operations, type OperationId, type Operations } from './operations.generated.ts';
import type { OperationSpec } from './spec.ts';

export interface ClientOptions {
  /** Where the API listens, e.g. `https://ap.example.com` (operation paths already carry `/public/api/v1`). */
  baseUrl: string;
  /** The company API key: sent as `api-key`, or as `Authorization: ApiKey <key>` to the ERP catalog operations. */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** Defaults to the global `fetch` (Node ≥ 18, browsers). */
  fetch?: typeof fetch;
}

/** What every call accepts besides the operation's own request. */
export interface CallOptions {
  /** Extra headers for this call; they win over the client's. */
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

interface Operation {
  request: object;
  responses: object;
}

/** The answer to an operation: one member per documented status, so checking `status` narrows `body`. */
export type ResultOf<O extends Operation> = {
  [S in keyof O['responses'] & number]: { status: S; body: O['responses'][S]; headers: Headers };
}[keyof O['responses'] & number];

/** The request argument, optional when nothing in it is required. */
type Arguments<R> = {} extends R ? [request?: R & CallOptions] : [request: R & CallOptions];

export type Client = {
  [K in OperationId]: (...request: Arguments<Operations[K]['request']>) => Promise<ResultOf<Operations[K]>>;
};

/** The API answered a status the OpenAPI document does not declare for the operation, or not the one expected. */
export class UnexpectedResponseError extends Error {
  readonly operationId: string | undefined;
  readonly status: number;
  readonly body: unknown;
  readonly headers: Headers;
  constructor(answer: { status: number; body: unknown; headers: Headers }, expected: string, operationId?: string) {
    super(
      `${operationId ?? 'The API'} answered ${answer.status} (expected ${expected}): ${JSON.stringify(answer.body) ?? ''}`.slice(
        0,
        2000,
      ),
    );
    this.name = 'UnexpectedResponseError';
    this.operationId = operationId;
    this.status = answer.status;
    this.body = answer.body;
    this.headers = answer.headers;
  }
}

/** A client with one method per operation of the OpenAPI document, named by its operationId. */
export function createClient(options: ClientOptions): Client {
  const send = sender(options);
  const methods = Object.entries(operations).map(
    ([id, spec]) => [id, (request: RequestParts = {}) => send(id, spec, request)] as const,
  );
  return Object.fromEntries(methods) as unknown as Client;
}

/** The body of a result with the expected status; anything else throws an UnexpectedResponseError. */
export function expectStatus<R extends { status: number; body: unknown; headers: Headers }, S extends R['status']>(
  result: R,
  status: S,
): Extract<R, { status: S }>['body'] {
  if (result.status !== status) throw new UnexpectedResponseError(result, String(status));
  return result.body;
}

/** A request as the runtime sees it: every field any operation may carry. */
interface RequestParts extends CallOptions {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean | readonly (string | number)[] | null | undefined>;
  body?: unknown;
  form?: Record<string, string | Blob | undefined>;
  idempotencyKey?: string;
}

function sender(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  return async (operationId: string, spec: OperationSpec, request: RequestParts) => {
    const url = new URL(`${baseUrl}${fillPath(spec.path, request.params ?? {})}`);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined && value !== null)
        url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value));
    }
    const headers = new Headers(options.headers);
    if (options.apiKey !== undefined && spec.auth === 'api-key') headers.set('api-key', options.apiKey);
    if (options.apiKey !== undefined && spec.auth === 'erp-key')
      headers.set('authorization', `ApiKey ${options.apiKey}`);
    if (request.idempotencyKey !== undefined) headers.set('idempotency-key', request.idempotencyKey);
    let body: string | FormData | undefined;
    if (request.form) {
      body = formData(request.form);
    } else if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers.set('content-type', 'application/json');
    }
    for (const [name, value] of Object.entries(request.headers ?? {})) headers.set(name, value);

    const response = await fetchImpl(url, {
      method: spec.method,
      headers,
      body,
      ...(request.signal ? { signal: request.signal } : {}),
    });
    const answer = { status: response.status, body: await readBody(response), headers: response.headers };
    if (!spec.statuses.includes(answer.status))
      throw new UnexpectedResponseError(answer, `one of ${spec.statuses.join(', ')}`, operationId);
    return answer;
  };
}

function fillPath(template: string, params: Record<string, string | number>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new TypeError(`Missing path parameter ${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

function formData(fields: Record<string, string | Blob | undefined>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  return form;
}

/** JSON when the API sent JSON; the text otherwise (an error page of a proxy); nothing for an empty body. */
async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
