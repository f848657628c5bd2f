import { randomUUID } from 'node:crypto';
import { backoff, type RetryStats } from './retry-stats.ts';

export interface ApiAnswer {
  status: number;
  body: any;
}

export interface IntegratorOptions {
  /** The API's URLs (replicas): requests take turns, as behind a load balancer. */
  baseUrls: string[];
  apiKey: string;
  stats: RetryStats;
  /** A request that has not had a final answer by then fails the run: the service stopped answering. */
  giveUpAfterMs: number;
  /** Per attempt: longer than any bounded wait of the API (its Temporal commands give up after 20 s). */
  attemptTimeoutMs?: number;
}

export interface RequestOptions {
  body?: unknown;
  /** POSTs carry one, generated per request unless given; it is the same on every retry of the request. */
  idempotencyKey?: string;
}

/**
 * An API client that behaves as a careful integrator: on a refused or dropped connection, a timeout, a 503, a 409
 * "same key still in progress" or another 5xx it tries again with back-off, sending a POST again with the same
 * Idempotency-Key; on a 429 it waits as `Retry-After` says. Any other answer is final and returned.
 */
export function integratorClient(options: IntegratorOptions) {
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 45_000;
  let turn = 0;
  return async function request(
    method: 'GET' | 'POST',
    path: string,
    requestOptions: RequestOptions = {},
  ): Promise<ApiAnswer> {
    const headers: Record<string, string> = { 'api-key': options.apiKey };
    if (method === 'POST') headers['idempotency-key'] = requestOptions.idempotencyKey ?? randomUUID();
    if (requestOptions.body !== undefined) headers['content-type'] = 'application/json';
    const body = requestOptions.body === undefined ? undefined : JSON.stringify(requestOptions.body);
    const deadline = Date.now() + options.giveUpAfterMs;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() > deadline)
        throw new Error(`${method} ${path}: no final answer within ${options.giveUpAfterMs / 1000} s`);
      let answer: ApiAnswer;
      let retryAfter: string | null = null;
      try {
        const baseUrl = options.baseUrls[turn++ % options.baseUrls.length];
        options.stats.requests.api += 1;
        const response = await fetch(`${baseUrl}${path}`, {
          method,
          headers,
          ...(body === undefined ? {} : { body }),
          signal: AbortSignal.timeout(attemptTimeoutMs),
        });
        const text = await response.text();
        answer = { status: response.status, body: text ? parseJson(text) : undefined };
        retryAfter = response.headers.get('retry-after');
      } catch (error) {
        options.stats.count((error as Error).name === 'TimeoutError' ? 'timeout' : 'connection');
        await backoff(attempt);
        continue;
      }
      if (answer.status === 503) options.stats.count('unavailable');
      else if (answer.status === 429) {
        // The per-key rate limit of production: wait as told, as a careful integrator does.
        options.stats.count('rate_limited');
        await new Promise((resolve) => setTimeout(resolve, Number(retryAfter ?? 1) * 1000));
        continue;
      } else if (answer.status === 409 && answer.body?.code === 'idempotency_key_in_progress')
        options.stats.count('in_progress');
      else if (answer.status >= 500)
        options.stats.count('server_error', `${method} ${path} → ${answer.status} ${JSON.stringify(answer.body)}`);
      else return answer;
      await backoff(attempt);
    }
  };
}

export type Integrator = ReturnType<typeof integratorClient>;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
