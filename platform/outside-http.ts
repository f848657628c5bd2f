/** How the adapters talk to outside services over HTTP: bounded time, JSON bodies, idempotency keys. */
export const SERVICE_TIMEOUT_MS = 10_000;

/** The body as JSON, or null when it is empty or not JSON (the caller decides what that means). */
export async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
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
