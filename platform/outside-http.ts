/** How the adapters talk to outside services over HTTP: bounded time, JSON bodies, idempotency keys. */
export const SERVICE_TIMEOUT_MS = 10_000;

/** What an outside service may answer at most: a JSON or SOAP answer is a few kilobytes. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** A response whose body is read as a web stream (the global fetch's and undici's alike). */
interface StreamedResponse {
  body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(): Promise<void> } } | null;
}

/**
 * The first `maxBytes` of a body; `complete` false when there was more, which is not read: the other side cannot make
 * the process hold more than `maxBytes` of it.
 */
export async function readBytesUpTo(
  response: StreamedResponse,
  maxBytes: number,
): Promise<{ bytes: Buffer; complete: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (!response.body) return { bytes: Buffer.alloc(0), complete: true };
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done || !value) return { bytes: Buffer.concat(chunks), complete: true };
    if (size + value.length > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      await reader.cancel();
      return { bytes: Buffer.concat(chunks), complete: false };
    }
    chunks.push(value);
    size += value.length;
  }
}

/** The first `maxBytes` of a body, as UTF-8 text; `complete` false when there was more, which is not read. */
export async function readTextUpTo(
  response: StreamedResponse,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  const { bytes, complete } = await readBytesUpTo(response, maxBytes);
  return { text: new TextDecoder().decode(bytes), complete };
}

/** The body as JSON, or null when it is empty, not JSON or larger than any answer (the caller decides what that means). */
export async function readJson(response: Response): Promise<unknown> {
  const { text, complete } = await readTextUpTo(response, MAX_ANSWER_BYTES);
  if (!complete) return null;
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/** URLs under a configured base; unset, a call fails (and Temporal retries it until the operator sets `variable`). */
export function serviceUrl(baseUrl: string, variable: string): (path: string) => string {
  return (path) => {
    if (!baseUrl) throw new Error(`${variable} is not set`);
    return `${baseUrl.replace(/\/$/, '')}${path}`;
  };
}

/** POSTs JSON with an idempotency key, so that a retried call names the same operation. */
export function postIdempotent(url: string, idempotencyKey: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
  });
}

/** Why a request to an outside system got no answer: the time it ran out, or the network's error and its cause. */
export function noAnswer(thrown: unknown, timeoutMs: number): string {
  const error = thrown as Error;
  if (error.name === 'TimeoutError') return `No answer within ${timeoutMs / 1000} s`;
  return `${error.message}${error.cause ? `: ${(error.cause as Error).message}` : ''}`;
}
