// An OAuth2 authorization server for mailboxes read over OAuth2 (SASL XOAUTH2), for the tests: one real HTTP server with
// - the token endpoint (`POST /token`, form-encoded), answering the client-credentials grant as Microsoft's identity
//   platform does for an app registration (client id and secret, the scope `<resource>/.default`), and the JWT-bearer
//   grant (RFC 7523) as Google's does for a service account with domain-wide delegation (an RS256 assertion whose
//   `sub` is the mailbox);
// - token introspection (`POST /introspect`, RFC 7662, `token=` form-encoded), what a Dovecot `oauth2` passdb asks
//   with `introspection_mode = post`: `active`, and the mailbox the token may open as `username`.
// Tokens are opaque and short-lived; a client can be revoked (the token endpoint answers 401 invalid_client, its
// tokens turn inactive) and reinstated, and the tokens issued so far can be expired on demand. Steered from code or
// over `/_control/...`; a request it cannot read is answered 4xx, never thrown.
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from '../http.ts';

export const CLIENT_CREDENTIALS = 'client_credentials';
export const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const MAX_BODY_BYTES = 64 * 1024;
const DEFAULT_EXPIRES_IN = 3600;

/** An app registration: it may read `mailbox` with one of `scopes`. */
export interface SimulatedClient {
  clientId: string;
  clientSecret: string;
  mailbox: string;
  scopes: string[];
  /** The lifetime of its tokens, in seconds (an hour unless told). */
  expiresIn?: number;
}

/** A service account with domain-wide delegation: it may act as any mailbox, for one of `scopes`. */
export interface SimulatedServiceAccount {
  clientEmail: string;
  /** The public half of the key the account signs its assertions with (PEM). */
  publicKey: string;
  scopes: string[];
  expiresIn?: number;
}

export interface IssuedToken {
  token: string;
  clientId: string;
  /** The mailbox it opens. */
  username: string;
  scope: string;
  issuedAt: Date;
  expiresAt: Date;
}

export interface TokenRequest {
  receivedAt: Date;
  grant: string;
  clientId: string | null;
  status: number;
  error: string | null;
}

export interface Introspection {
  receivedAt: Date;
  clientId: string | null;
  active: boolean;
}

export interface OAuth2Simulator {
  url: string;
  tokenUrl: string;
  introspectionUrl: string;
  addClient(client: SimulatedClient): void;
  addServiceAccount(account: SimulatedServiceAccount): void;
  /** The token endpoint refuses the client (or service account) from now on, and its tokens turn inactive. */
  revoke(clientId: string): void;
  reinstate(clientId: string): void;
  /** Every token issued so far (to `clientId`, or to anyone) turns inactive, as an expired one. */
  expireTokens(clientId?: string): void;
  issued(clientId?: string): IssuedToken[];
  tokenRequests(clientId?: string): TokenRequest[];
  introspections(clientId?: string): Introspection[];
  stop(): Promise<void>;
}

interface Registration {
  kind: 'client' | 'service_account';
  secret: string;
  publicKey: KeyObject | null;
  mailbox: string;
  scopes: string[];
  expiresIn: number;
  revoked: boolean;
}

interface Answer {
  status: number;
  body: unknown;
}

const oauthError = (status: number, error: string, description: string): Answer => ({
  status,
  body: { error, error_description: description },
});

/** Starts the server on loopback (or `host`), on a free port unless one is given. */
export async function startOAuth2Simulator(options: { port?: number; host?: string } = {}): Promise<OAuth2Simulator> {
  const registrations = new Map<string, Registration>();
  const tokens = new Map<string, IssuedToken & { expired: boolean }>();
  const requests: TokenRequest[] = [];
  const introspections: Introspection[] = [];
  let tokenUrl = '';

  const positive = (value: number | undefined) => {
    if (value === undefined) return DEFAULT_EXPIRES_IN;
    if (!Number.isInteger(value) || value < 1) throw new RangeError('expiresIn must be a positive whole number');
    return value;
  };
  const addClient = (client: SimulatedClient) => {
    if (!client.clientId || !client.clientSecret || !client.mailbox)
      throw new RangeError('clientId, clientSecret and mailbox are required');
    registrations.set(client.clientId, {
      kind: 'client',
      secret: client.clientSecret,
      publicKey: null,
      mailbox: client.mailbox,
      scopes: [...client.scopes],
      expiresIn: positive(client.expiresIn),
      revoked: false,
    });
  };
  const addServiceAccount = (account: SimulatedServiceAccount) => {
    if (!account.clientEmail) throw new RangeError('clientEmail is required');
    registrations.set(account.clientEmail, {
      kind: 'service_account',
      secret: '',
      publicKey: createPublicKey(account.publicKey),
      mailbox: '',
      scopes: [...account.scopes],
      expiresIn: positive(account.expiresIn),
      revoked: false,
    });
  };
  const registered = (clientId: string) => {
    const registration = registrations.get(clientId);
    if (!registration) throw new RangeError(`No client ${clientId}`);
    return registration;
  };
  const revoke = (clientId: string) => {
    registered(clientId).revoked = true;
  };
  const reinstate = (clientId: string) => {
    registered(clientId).revoked = false;
  };
  const expireTokens = (clientId?: string) => {
    for (const token of tokens.values()) if (!clientId || token.clientId === clientId) token.expired = true;
  };

  const issue = (clientId: string, registration: Registration, username: string, scope: string): Answer => {
    const issuedAt = new Date();
    const token: IssuedToken = {
      token: `simat_${randomBytes(24).toString('base64url')}`,
      clientId,
      username,
      scope,
      issuedAt,
      expiresAt: new Date(issuedAt.getTime() + registration.expiresIn * 1000),
    };
    tokens.set(token.token, { ...token, expired: false });
    return {
      status: 200,
      body: { token_type: 'Bearer', expires_in: registration.expiresIn, access_token: token.token },
    };
  };

  const clientCredentials = (form: URLSearchParams, authorization: string | undefined): Answer => {
    let clientId = form.get('client_id');
    let secret = form.get('client_secret');
    // client_secret_basic, as RFC 6749 allows.
    const basic = /^Basic ([A-Za-z0-9+/=]+)$/.exec(authorization ?? '');
    if (basic) {
      const [id, ...rest] = Buffer.from(basic[1]!, 'base64').toString('utf8').split(':');
      clientId = decodeURIComponent(id ?? '');
      secret = decodeURIComponent(rest.join(':'));
    }
    const registration = clientId ? registrations.get(clientId) : undefined;
    if (!clientId || !registration || registration.kind !== 'client')
      return oauthError(400, 'invalid_client', `AADSTS700016: Application ${clientId ?? ''} was not found.`);
    if (registration.revoked || secret !== registration.secret)
      return oauthError(401, 'invalid_client', 'AADSTS7000215: Invalid client secret provided.');
    const scope = form.get('scope') ?? '';
    if (!registration.scopes.includes(scope))
      return oauthError(400, 'invalid_scope', `AADSTS70011: The provided value for scope ${scope} is not valid.`);
    return issue(clientId, registration, registration.mailbox, scope);
  };

  const jwtBearer = (form: URLSearchParams): { answer: Answer; clientId: string | null } => {
    const parts = (form.get('assertion') ?? '').split('.');
    const invalid = (description: string, clientId: string | null = null) => ({
      answer: oauthError(400, 'invalid_grant', description),
      clientId,
    });
    if (parts.length !== 3) return invalid('Invalid JWT: malformed assertion.');
    let header: Record<string, unknown>;
    let claims: Record<string, unknown>;
    try {
      header = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8')) as Record<string, unknown>;
      claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;
    } catch {
      return invalid('Invalid JWT: undecodable header or claims.');
    }
    const clientId = typeof claims.iss === 'string' ? claims.iss : null;
    const registration = clientId ? registrations.get(clientId) : undefined;
    if (!clientId || !registration || registration.kind !== 'service_account' || !registration.publicKey)
      return invalid('Invalid JWT Signature.', clientId);
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    if (
      header.alg !== 'RS256' ||
      registration.revoked ||
      !verify('RSA-SHA256', signed, registration.publicKey, Buffer.from(parts[2]!, 'base64url'))
    )
      return invalid('Invalid JWT Signature.', clientId);
    const now = Date.now() / 1000;
    const { iat, exp, aud, sub, scope } = claims;
    if (typeof iat !== 'number' || typeof exp !== 'number' || exp <= now || iat > now + 60 || exp - iat > 3600)
      return invalid(
        'Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe.',
        clientId,
      );
    if (aud !== tokenUrl) return invalid('Invalid JWT: audience is not the token endpoint.', clientId);
    if (typeof sub !== 'string' || sub === '') return invalid('Invalid JWT: no subject to act as.', clientId);
    if (typeof scope !== 'string' || !registration.scopes.includes(scope))
      return {
        answer: oauthError(
          401,
          'unauthorized_client',
          'Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested.',
        ),
        clientId,
      };
    return { answer: issue(clientId, registration, sub, scope), clientId };
  };

  const token = (form: URLSearchParams, authorization: string | undefined): Answer => {
    const grant = form.get('grant_type') ?? '';
    let answer: Answer;
    let clientId: string | null = form.get('client_id');
    if (grant === CLIENT_CREDENTIALS) answer = clientCredentials(form, authorization);
    else if (grant === JWT_BEARER) ({ answer, clientId } = jwtBearer(form));
    else answer = oauthError(400, 'unsupported_grant_type', `The grant type "${grant}" is not supported.`);
    const error = (answer.body as { error?: string }).error ?? null;
    requests.push({ receivedAt: new Date(), grant, clientId, status: answer.status, error });
    return answer;
  };

  const introspect = (form: URLSearchParams): Answer => {
    const found = tokens.get(form.get('token') ?? '');
    const active =
      !!found &&
      !found.expired &&
      found.expiresAt.getTime() > Date.now() &&
      !registrations.get(found.clientId)?.revoked;
    introspections.push({ receivedAt: new Date(), clientId: found?.clientId ?? null, active });
    if (!found || !active) return { status: 200, body: { active: false } };
    return {
      status: 200,
      body: {
        active: true,
        username: found.username,
        client_id: found.clientId,
        scope: found.scope,
        token_type: 'Bearer',
        iat: Math.floor(found.issuedAt.getTime() / 1000),
        exp: Math.floor(found.expiresAt.getTime() / 1000),
      },
    };
  };

  const control = (method: string, segments: string[], body: unknown): Answer => {
    const input = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    const [, collection, id, action] = segments;
    if (method === 'POST' && collection === 'clients' && !id) {
      addClient({
        clientId: text(input.client_id),
        clientSecret: text(input.client_secret),
        mailbox: text(input.mailbox),
        scopes: Array.isArray(input.scopes) ? input.scopes.map(String) : [],
        ...(input.expires_in !== undefined ? { expiresIn: Number(input.expires_in) } : {}),
      });
      return { status: 201, body: { client_id: input.client_id } };
    }
    if (method === 'POST' && collection === 'service-accounts' && !id) {
      addServiceAccount({
        clientEmail: text(input.client_email),
        publicKey: text(input.public_key),
        scopes: Array.isArray(input.scopes) ? input.scopes.map(String) : [],
        ...(input.expires_in !== undefined ? { expiresIn: Number(input.expires_in) } : {}),
      });
      return { status: 201, body: { client_email: input.client_email } };
    }
    if (method === 'POST' && collection === 'clients' && id && action === 'revoke') {
      revoke(id);
      return { status: 200, body: { client_id: id, revoked: true } };
    }
    if (method === 'POST' && collection === 'clients' && id && action === 'reinstate') {
      reinstate(id);
      return { status: 200, body: { client_id: id, revoked: false } };
    }
    if (method === 'POST' && collection === 'tokens' && id === 'expire') {
      expireTokens(typeof input.client_id === 'string' ? input.client_id : undefined);
      return { status: 200, body: { expired: true } };
    }
    if (method === 'GET' && collection === 'token-requests')
      return { status: 200, body: { requests: requests.filter((request) => !id || request.clientId === id) } };
    return {
      status: 404,
      body: {
        error: 'not_found',
        error_description:
          'Control routes: POST /_control/clients, POST /_control/service-accounts, POST /_control/clients/<id>/revoke|reinstate, POST /_control/tokens/expire, GET /_control/token-requests[/<id>]',
      },
    };
  };

  const route = (request: IncomingMessage, raw: Buffer): Answer => {
    const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
    const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
    const method = request.method ?? '';
    const type = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
    if (segments[0] === '_control') {
      let json: unknown;
      try {
        json = raw.length === 0 ? undefined : JSON.parse(raw.toString('utf8'));
      } catch {
        return oauthError(400, 'invalid_request', 'The body is not JSON');
      }
      if (json !== undefined && (typeof json !== 'object' || json === null || Array.isArray(json)))
        return oauthError(400, 'invalid_request', 'The body must be a JSON object');
      return control(method, segments, json);
    }
    const endpoint = segments.join('/');
    if (endpoint !== 'token' && endpoint !== 'introspect')
      return oauthError(404, 'not_found', 'Routes: POST /token, POST /introspect');
    if (method !== 'POST') return oauthError(405, 'invalid_request', `${endpoint} takes POST`);
    if (type !== 'application/x-www-form-urlencoded')
      return oauthError(400, 'invalid_request', 'The body must be application/x-www-form-urlencoded');
    const form = new URLSearchParams(raw.toString('utf8'));
    return endpoint === 'token' ? token(form, request.headers.authorization) : introspect(form);
  };

  const send = (response: ServerResponse, answer: Answer) => {
    const body = JSON.stringify(answer.body);
    response.writeHead(answer.status, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'cache-control': 'no-store',
    });
    response.end(body);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        if (!refused) send(response, oauthError(413, 'invalid_request', `Bodies are at most ${MAX_BODY_BYTES} bytes`));
        refused = true;
        return;
      }
      chunks.push(chunk);
    });
    request.on('error', () => response.destroy());
    request.on('end', () => {
      if (refused) return;
      let answer: Answer;
      try {
        answer = route(request, Buffer.concat(chunks));
      } catch (error) {
        // Bad control input (an unknown client, a malformed key): the caller's mistake.
        answer = oauthError(400, 'invalid_request', (error as Error).message);
      }
      send(response, answer);
    });
  });
  const running = await listen(server, {
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.host ? { host: options.host } : {}),
  });
  tokenUrl = `${running.url}/token`;
  const byClient = <T extends { clientId: string | null }>(list: T[], clientId?: string) =>
    list.filter((entry) => !clientId || entry.clientId === clientId);
  return {
    url: running.url,
    tokenUrl,
    introspectionUrl: `${running.url}/introspect`,
    addClient,
    addServiceAccount,
    revoke,
    reinstate,
    expireTokens,
    issued: (clientId) =>
      byClient([...tokens.values()], clientId).map(({ expired: _expired, ...token }) => ({ ...token })),
    tokenRequests: (clientId) => byClient(requests, clientId),
    introspections: (clientId) => byClient(introspections, clientId),
    stop: running.stop,
  };
}
