// Access tokens for a company's mailbox read over OAuth2 (SASL XOAUTH2), obtained by the product itself, with no person
// signing in: the client-credentials grant of an app registration (Microsoft 365: client id and secret, scope
// `https://outlook.office365.com/.default`), or the JWT-bearer grant of a service account with domain-wide delegation
// (Google Workspace, RFC 7523: an assertion signed with the account's private key, acting as the mailbox). A token is
// kept in the worker's memory until shortly before it expires, and dropped as soon as the mail server refuses it. The
// token endpoint is an outside URL: it is judged by the outbound policy and reached only at the addresses judged.
// Neither the token nor the secret is ever logged or put in a failure's message.
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { Refusal } from '../../platform/refusal.ts';
import { pinnedFetch } from '../../platform/outbound-http.ts';
import { judgeReceiver, type OutboundPolicy, type Resolve } from '../../platform/outbound-policy.ts';
import { readTextUpTo, SERVICE_TIMEOUT_MS } from '../../platform/outside-http.ts';

export const OAUTH2_GRANTS = ['client_credentials', 'jwt_bearer'] as const;
export type OAuth2Grant = (typeof OAUTH2_GRANTS)[number];

/** Microsoft's token endpoint of a tenant (its id or one of its domains). */
export const microsoftTokenUrl = (tenant: string) =>
  `https://login.microsoftonline.com/${encodeURIComponent(tenant)}/oauth2/v2.0/token`;
export const MICROSOFT_IMAP_SCOPE = 'https://outlook.office365.com/.default';
export const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
export const GOOGLE_MAIL_SCOPE = 'https://mail.google.com/';

export interface OAuth2Credentials {
  grant: OAuth2Grant;
  tokenUrl: string;
  /** The app's client id; for `jwt_bearer`, the service account's e-mail. */
  clientId: string;
  /** The client secret; for `jwt_bearer`, the service account's private key (PEM). */
  secret: string;
  scope: string;
  /** The mailbox a `jwt_bearer` token acts as (the IMAP user). */
  subject: string;
}

/** The access tokens of one mailbox's credentials. */
export interface AccessTokens {
  /** A token that is valid for a while yet: the one kept, else a new one from the token endpoint. */
  current(): Promise<string>;
  /** The mail server refused `token`: it is dropped, and the next `current()` asks for a new one. */
  refused(token: string): void;
}

export interface AccessTokenDeps {
  outbound: OutboundPolicy;
  resolve?: Resolve;
  /** The activity's attempt: an unavailable token endpoint is final at `UNAVAILABLE_ATTEMPTS`. */
  attempt: number;
  /** The worker's tokens unless a test gives its own. */
  cache?: AccessTokenCache;
  now?: () => number;
}

/** Attempts of one sync before a token endpoint that does not answer fails it (as an unreachable mail server does). */
export const UNAVAILABLE_ATTEMPTS = 3;
/** A token is renewed this long before it expires, at most: a tenth of its lifetime for short-lived ones. */
export const RENEW_MARGIN_MS = 60_000;
/** The lifetime assumed when the token endpoint states none (`expires_in` is only recommended by RFC 6749). */
const ASSUMED_LIFETIME_S = 300;
/** The lifetime of a JWT-bearer assertion (Google allows one hour at most). */
const ASSERTION_LIFETIME_S = 3600;
const MAX_CACHED = 1000;

interface Kept {
  token: string;
  renewAt: number;
}

/** Tokens by credentials (a hash of them, the secret included: a new secret is a new entry), and requests in flight. */
export interface AccessTokenCache {
  kept: Map<string, Kept>;
  pending: Map<string, Promise<Kept>>;
}

export const newAccessTokenCache = (): AccessTokenCache => ({ kept: new Map(), pending: new Map() });
const workerCache = newAccessTokenCache();

export function accessTokens(credentials: OAuth2Credentials, deps: AccessTokenDeps): AccessTokens {
  const cache = deps.cache ?? workerCache;
  const now = deps.now ?? Date.now;
  const key = createHash('sha256')
    .update(
      JSON.stringify([
        credentials.grant,
        credentials.tokenUrl,
        credentials.clientId,
        credentials.scope,
        credentials.subject,
        credentials.secret,
      ]),
    )
    .digest('hex');
  return {
    async current() {
      const kept = cache.kept.get(key);
      if (kept && now() < kept.renewAt) return kept.token;
      let pending = cache.pending.get(key);
      if (!pending) {
        // One request for every session that needs a token of these credentials now.
        pending = requestToken(credentials, deps, now).finally(() => cache.pending.delete(key));
        cache.pending.set(key, pending);
      }
      const fresh = await pending;
      cache.kept.delete(key);
      cache.kept.set(key, fresh);
      if (cache.kept.size > MAX_CACHED) cache.kept.delete(cache.kept.keys().next().value!);
      return fresh.token;
    },
    refused(token) {
      if (cache.kept.get(key)?.token === token) cache.kept.delete(key);
    },
  };
}

/** Text from the token endpoint as it may appear in a message: one line, printable, bounded. */
const said = (text: string) =>
  text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .trim()
    .slice(0, 300);

function refused(message: string) {
  return new Refusal('MailboxOAuthRefused', message, { details: { code: 'mailbox_oauth_refused' } });
}

function unavailable(credentials: OAuth2Credentials, why: string, attempt: number) {
  const message = `The token endpoint ${credentials.tokenUrl} did not give an access token (${why}), attempt ${attempt} of ${UNAVAILABLE_ATTEMPTS}`;
  return attempt >= UNAVAILABLE_ATTEMPTS
    ? new Refusal('MailboxOAuthUnavailable', message, { details: { code: 'mailbox_oauth_unavailable' } })
    : Refusal.retryable('MailboxOAuthUnavailable', message, { code: 'mailbox_oauth_unavailable' });
}

async function requestToken(credentials: OAuth2Credentials, deps: AccessTokenDeps, now: () => number): Promise<Kept> {
  const url = new URL(credentials.tokenUrl);
  // Judged afresh for each request, and reached only at the addresses judged: DNS cannot move it elsewhere.
  const target = await judgeReceiver(url, deps.outbound, deps.resolve);
  if ('refusal' in target)
    throw new Refusal(
      'MailboxOAuthRefused',
      `The token endpoint ${credentials.tokenUrl} is refused by the outbound policy: ${target.refusal}`,
      { details: { code: 'mailbox_oauth_url_refused' } },
    );
  if ('unresolved' in target) throw unavailable(credentials, target.unresolved, deps.attempt);
  const requestedAt = now();
  let status: number;
  let text: string;
  try {
    const response = await pinnedFetch(target.addresses, url.href, {
      method: 'POST',
      // A redirect would lead the secret somewhere the policy did not judge.
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: tokenRequestBody(credentials, requestedAt).toString(),
      signal: AbortSignal.timeout(SERVICE_TIMEOUT_MS),
    });
    status = response.status;
    ({ text } = await readTextUpTo(response, 64 * 1024));
  } catch (error) {
    const cause = error as Error & { cause?: { code?: string; message?: string } };
    const why =
      cause.name === 'TimeoutError'
        ? `no answer within ${SERVICE_TIMEOUT_MS / 1000} s`
        : (cause.cause?.code ?? cause.cause?.message ?? cause.message);
    throw unavailable(credentials, said(why), deps.attempt);
  }
  let answer: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      answer = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: judged by its status alone.
  }
  if (status === 200) {
    const token = answer.access_token;
    const type = answer.token_type;
    // A token goes into the SASL payload as it is: printable ASCII only.
    if (typeof token !== 'string' || !/^[\x21-\x7e]{1,8192}$/.test(token))
      throw unavailable(credentials, 'an answer without a usable access_token', deps.attempt);
    if (type !== undefined && (typeof type !== 'string' || type.toLowerCase() !== 'bearer'))
      throw refused(
        `The token endpoint ${credentials.tokenUrl} gave a token of type ${typeof type === 'string' ? `"${said(type)}"` : typeof type}, not a bearer token: IMAP takes bearer tokens`,
      );
    const expiresIn = Number(answer.expires_in ?? ASSUMED_LIFETIME_S);
    const lifetimeMs = (Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : ASSUMED_LIFETIME_S) * 1000;
    return { token, renewAt: requestedAt + lifetimeMs - Math.min(RENEW_MARGIN_MS, lifetimeMs / 10) };
  }
  if (status === 429 || status >= 500) throw unavailable(credentials, `HTTP ${status}`, deps.attempt);
  // Quoted for the operator, without the secret should an endpoint echo it.
  const quoted = (value: unknown) =>
    typeof value === 'string'
      ? said(credentials.secret ? value.split(credentials.secret).join('[secret]') : value)
      : '';
  const error = quoted(answer.error);
  const description = quoted(answer.error_description);
  const who =
    credentials.grant === 'jwt_bearer'
      ? `the service account ${credentials.clientId} acting as ${credentials.subject}`
      : `the client ${credentials.clientId}`;
  if (error)
    throw refused(
      `The token endpoint ${credentials.tokenUrl} refused ${who} (${error}${description ? `: ${description}` : ''}): ${
        credentials.grant === 'jwt_bearer'
          ? "check the service account's key, its domain-wide delegation and the scope"
          : 'check the client id and secret (secrets expire), the tenant and the scope'
      }, then register the mailbox again (ops fiscal mailbox)`,
    );
  throw refused(
    `The token endpoint ${credentials.tokenUrl} answered HTTP ${status}${status >= 300 && status < 400 ? ' (a redirect, not followed)' : ''}: check the token endpoint's URL (ops fiscal mailbox)`,
  );
}

function tokenRequestBody(credentials: OAuth2Credentials, requestedAt: number): URLSearchParams {
  if (credentials.grant === 'client_credentials')
    return new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: credentials.clientId,
      client_secret: credentials.secret,
      scope: credentials.scope,
    });
  return new URLSearchParams({
    grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
    assertion: jwtAssertion(credentials, Math.floor(requestedAt / 1000)),
  });
}

/** RFC 7523's assertion as Google takes it: RS256, issued by the service account, for the token endpoint, as the mailbox. */
export function jwtAssertion(credentials: OAuth2Credentials, issuedAt: number): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const signed = `${part({ alg: 'RS256', typ: 'JWT' })}.${part({
    iss: credentials.clientId,
    sub: credentials.subject,
    scope: credentials.scope,
    aud: credentials.tokenUrl,
    iat: issuedAt,
    exp: issuedAt + ASSERTION_LIFETIME_S,
  })}`;
  let signature: Buffer;
  try {
    signature = sign('RSA-SHA256', Buffer.from(signed), createPrivateKey(credentials.secret));
  } catch {
    throw new Refusal(
      'MailboxOAuthRefused',
      `The private key of the service account ${credentials.clientId} cannot sign: register the mailbox again with its key file (ops fiscal mailbox)`,
      { details: { code: 'mailbox_oauth_refused' } },
    );
  }
  return `${signed}.${signature.toString('base64url')}`;
}
