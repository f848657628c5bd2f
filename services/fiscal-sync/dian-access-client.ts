// The adapter to DIAN's access-token service for received documents: the company's NIT and legal representative ask
// for a token (DIAN's portal sends it to the company's registered e-mail, which the company forwards to its mailbox).
// JSON over HTTP at a configurable base URL (DIAN_AUTH_URL, else DIAN_URL), like the event adapter beside it.
import { Refusal } from '../../platform/refusal.ts';
import { MAX_ANSWER_BYTES, noAnswer, readTextUpTo } from '../../platform/outside-http.ts';
import { isObject } from '../../platform/json.ts';

export interface DianAccessToken {
  /** DIAN's identifier of the token request (the token itself is never kept). */
  requestId: string;
  expiresAt: string | null;
}

const REQUEST_TIMEOUT_MS = 15_000;
const unavailable = (message: string) => Refusal.retryable('DianUnavailable', message);

/** Requests an access token; throws DianUnavailable (retryable) or DianCredentialsRefused (not retryable). */
export async function requestDianAccessToken(
  baseUrl: string,
  credentials: { nit: string; legalRepresentative: string },
): Promise<DianAccessToken> {
  if (!baseUrl)
    throw new Refusal('DianCredentialsRefused', 'DIAN_AUTH_URL / DIAN_URL is not configured', {
      details: {
        code: 'dian_not_configured',
      },
    });
  let response: Response;
  try {
    response = await fetch(new URL('auth/token', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`), {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'accounts-payable-fiscal-sync/1' },
      body: JSON.stringify({
        identification_type: 'NIT',
        nit: credentials.nit,
        legal_representative: credentials.legalRepresentative,
      }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      redirect: 'manual',
    });
  } catch (thrown) {
    throw unavailable(`DIAN is unreachable: ${noAnswer(thrown, REQUEST_TIMEOUT_MS)}`);
  }
  const { text } = await readTextUpTo(response, MAX_ANSWER_BYTES);
  if (response.status === 408 || response.status === 429 || response.status >= 500)
    throw unavailable(`DIAN answered HTTP ${response.status}`);
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  if (!response.ok) {
    const error = isObject(body) && isObject(body.error) ? body.error : {};
    const message = typeof error.message === 'string' ? error.message : text.slice(0, 300);
    throw new Refusal('DianCredentialsRefused', `DIAN refused the access-token request: ${message}`, {
      details: { code: typeof error.code === 'string' ? error.code : `http_${response.status}` },
    });
  }
  if (!isObject(body) || typeof body.request_id !== 'string')
    throw unavailable('DIAN answered the access-token request without a request id');
  return { requestId: body.request_id, expiresAt: typeof body.expires_at === 'string' ? body.expires_at : null };
}
