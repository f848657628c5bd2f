// The access tokens of a mailbox read over OAuth2, against the OAuth2 simulator's real token endpoint: kept until
// shortly before they expire, one request for sessions that ask together, a new one once the mail server refuses the
// kept one, and failures with stable codes that never carry the secret.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Refusal } from '../../../platform/refusal.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundPolicyFromEnv } from '../../../platform/outbound-policy.ts';
import { freePort } from '../../../platform/ports.ts';
import {
  accessTokens,
  jwtAssertion,
  MICROSOFT_IMAP_SCOPE,
  newAccessTokenCache,
  type OAuth2Credentials,
} from '../../../services/fiscal-sync/mailbox-oauth2.ts';
import { startOAuth2Simulator, type OAuth2Simulator } from '../../../simulators/oauth2/server.ts';

const development = outboundPolicyFromEnv({ NODE_ENV: 'development' });
let simulator: OAuth2Simulator;
let answering: Server;
let answeringUrl: string;
/** What the stand-in endpoint answers next: a status and a body. */
let nextAnswer: { status: number; body: string; headers?: Record<string, string> } = { status: 503, body: '' };

beforeAll(async () => {
  simulator = await startOAuth2Simulator();
  answering = createServer((_request, response) => {
    response.writeHead(nextAnswer.status, { 'content-type': 'application/json', ...nextAnswer.headers });
    response.end(nextAnswer.body);
  });
  await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve));
  answeringUrl = `http://127.0.0.1:${(answering.address() as AddressInfo).port}/token`;
});
afterAll(async () => {
  await simulator?.stop();
  answering?.closeAllConnections();
  await new Promise((resolve) => answering?.close(resolve));
});

function client(expiresIn?: number): OAuth2Credentials {
  const credentials: OAuth2Credentials = {
    grant: 'client_credentials',
    tokenUrl: simulator.tokenUrl,
    clientId: randomUUID(),
    secret: randomBytes(24).toString('base64url'),
    scope: MICROSOFT_IMAP_SCOPE,
    subject: 'dian@empresa.example.co',
  };
  simulator.addClient({
    clientId: credentials.clientId,
    clientSecret: credentials.secret,
    mailbox: credentials.subject,
    scopes: [MICROSOFT_IMAP_SCOPE],
    ...(expiresIn ? { expiresIn } : {}),
  });
  return credentials;
}

/** The failure `promise` rejects with: its code, whether it is final, and its message. */
async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof Refusal)) throw new Error(`Not a refusal: ${String(error)}`);
  return { code: error.details.code, nonRetryable: !error.retryable, message: error.message };
}

describe('access tokens of the client-credentials grant', () => {
  it('keeps a token until shortly before it expires, and asks once for sessions that ask together', async () => {
    const credentials = client(100);
    let clock = Date.now();
    const tokens = accessTokens(credentials, {
      outbound: development,
      attempt: 1,
      cache: newAccessTokenCache(),
      now: () => clock,
    });
    const together = await Promise.all([tokens.current(), tokens.current(), tokens.current()]);
    expect(new Set(together).size).toBe(1);
    expect(simulator.tokenRequests(credentials.clientId)).toHaveLength(1);
    // 100 s of life: renewed 10 s (a tenth) before the end.
    clock += 89_000;
    expect(await tokens.current()).toBe(together[0]);
    clock += 2_000;
    const renewed = await tokens.current();
    expect(renewed).not.toBe(together[0]);
    expect(simulator.tokenRequests(credentials.clientId)).toHaveLength(2);
    expect(simulator.issued(credentials.clientId).map((issued) => issued.token)).toEqual([together[0], renewed]);
  });

  it('asks for a new token once the mail server refused the kept one, and only then', async () => {
    const credentials = client();
    const tokens = accessTokens(credentials, { outbound: development, attempt: 1, cache: newAccessTokenCache() });
    const first = await tokens.current();
    tokens.refused('some-other-token');
    expect(await tokens.current()).toBe(first);
    tokens.refused(first);
    const second = await tokens.current();
    expect(second).not.toBe(first);
    expect(simulator.tokenRequests(credentials.clientId).map((request) => request.status)).toEqual([200, 200]);
  });

  it('a revoked client, a wrong secret or scope: mailbox_oauth_refused, final, naming the error but never the secret', async () => {
    const revoked = client();
    simulator.revoke(revoked.clientId);
    const wrongSecret = { ...client(), secret: 'not-the-secret' };
    const wrongScope = { ...client(), scope: 'https://mail.example/.default' };
    const answers = await Promise.all(
      [revoked, wrongSecret, wrongScope].map((credentials) =>
        failure(
          accessTokens(credentials, { outbound: development, attempt: 1, cache: newAccessTokenCache() }).current(),
        ),
      ),
    );
    expect(answers).toEqual([
      {
        code: 'mailbox_oauth_refused',
        nonRetryable: true,
        message: expect.stringContaining(`refused the client ${revoked.clientId} (invalid_client: AADSTS7000215`),
      },
      { code: 'mailbox_oauth_refused', nonRetryable: true, message: expect.stringContaining('(invalid_client: ') },
      { code: 'mailbox_oauth_refused', nonRetryable: true, message: expect.stringContaining('(invalid_scope: ') },
    ]);
    expect(answers[0]!.message).not.toContain(revoked.secret);
    expect(answers[0]!.message).toContain('check the client id and secret');
  });

  it('a token endpoint that does not answer, or answers 5xx: retried, then mailbox_oauth_unavailable for good', async () => {
    const closed = { ...client(), tokenUrl: `http://127.0.0.1:${await freePort()}/token` };
    const tokensAt = (credentials: OAuth2Credentials, attempt: number) =>
      accessTokens(credentials, { outbound: development, attempt, cache: newAccessTokenCache() }).current();
    expect(await failure(tokensAt(closed, 1))).toEqual({
      code: 'mailbox_oauth_unavailable',
      nonRetryable: false,
      message: `The token endpoint ${closed.tokenUrl} did not give an access token (ECONNREFUSED), attempt 1 of 3`,
    });
    expect((await failure(tokensAt(closed, 3))).nonRetryable).toBe(true);
    nextAnswer = { status: 503, body: '{"error":"temporarily_unavailable"}' };
    expect(await failure(tokensAt({ ...closed, tokenUrl: answeringUrl }, 2))).toMatchObject({
      code: 'mailbox_oauth_unavailable',
      nonRetryable: false,
      message: expect.stringContaining('(HTTP 503), attempt 2 of 3'),
    });
  });

  it('follows no redirect, and takes only bearer tokens', async () => {
    const credentials = { ...client(), tokenUrl: answeringUrl };
    const fresh = () =>
      accessTokens(credentials, { outbound: development, attempt: 1, cache: newAccessTokenCache() }).current();
    nextAnswer = { status: 302, body: '', headers: { location: simulator.tokenUrl } };
    expect(await failure(fresh())).toMatchObject({
      code: 'mailbox_oauth_refused',
      message: expect.stringContaining('answered HTTP 302 (a redirect, not followed)'),
    });
    nextAnswer = { status: 200, body: '{"access_token":"abc","token_type":"mac","expires_in":3600}' };
    expect((await failure(fresh())).message).toContain('not a bearer token');
    nextAnswer = { status: 200, body: '{"access_token":"with space","expires_in":3600}' };
    expect((await failure(fresh())).code).toBe('mailbox_oauth_unavailable');
  });

  it('a token endpoint the outbound policy refuses is never asked', async () => {
    const credentials = client();
    const production = outboundPolicyFromEnv({ NODE_ENV: 'production' });
    expect(
      await failure(
        accessTokens(credentials, { outbound: production, attempt: 1, cache: newAccessTokenCache() }).current(),
      ),
    ).toEqual({
      code: 'mailbox_oauth_url_refused',
      nonRetryable: true,
      message: expect.stringContaining('is refused by the outbound policy: The URL must use https'),
    });
    expect(simulator.tokenRequests(credentials.clientId)).toEqual([]);
  });
});

describe('access tokens of the JWT-bearer grant (a service account with domain-wide delegation)', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const account = (): OAuth2Credentials => {
    const clientEmail = `sync-${randomUUID().slice(0, 8)}@project.iam.gserviceaccount.com`;
    simulator.addServiceAccount({
      clientEmail,
      publicKey: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      scopes: ['https://mail.google.com/'],
    });
    return {
      grant: 'jwt_bearer',
      tokenUrl: simulator.tokenUrl,
      clientId: clientEmail,
      secret: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      scope: 'https://mail.google.com/',
      subject: 'dian@empresa.example.co',
    };
  };

  it('signs an assertion for the token endpoint, acting as the mailbox, and gets a token for that mailbox', async () => {
    const credentials = account();
    const assertion = jwtAssertion(credentials, 1_800_000_000);
    const claims = JSON.parse(Buffer.from(assertion.split('.')[1]!, 'base64url').toString('utf8'));
    expect(claims).toEqual({
      iss: credentials.clientId,
      sub: 'dian@empresa.example.co',
      scope: 'https://mail.google.com/',
      aud: simulator.tokenUrl,
      iat: 1_800_000_000,
      exp: 1_800_003_600,
    });
    const token = await accessTokens(credentials, {
      outbound: development,
      attempt: 1,
      cache: newAccessTokenCache(),
    }).current();
    expect(simulator.issued(credentials.clientId)).toEqual([
      expect.objectContaining({ token, username: 'dian@empresa.example.co', scope: 'https://mail.google.com/' }),
    ]);
  });

  it("a key that is not the account's: mailbox_oauth_refused (invalid_grant)", async () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const credentials = {
      ...account(),
      secret: other.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    };
    expect(
      await failure(
        accessTokens(credentials, { outbound: development, attempt: 1, cache: newAccessTokenCache() }).current(),
      ),
    ).toMatchObject({
      code: 'mailbox_oauth_refused',
      message: expect.stringContaining(
        `refused the service account ${credentials.clientId} acting as dian@empresa.example.co (invalid_grant: Invalid JWT Signature.)`,
      ),
    });
  });
});

describe('the OAuth2 simulator', () => {
  it('answers 4xx to what it cannot read, and introspects only live tokens', async () => {
    const post = (path: string, body: string, type = 'application/x-www-form-urlencoded') =>
      fetch(`${simulator.url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    expect((await post('/token', '{}', 'application/json')).status).toBe(400);
    expect((await post('/token', 'grant_type=password')).status).toBe(400);
    expect((await post('/_control/clients', 'not json', 'application/json')).status).toBe(400);
    expect((await post('/_control/clients/nobody/revoke', '')).status).toBe(400);
    expect((await fetch(`${simulator.url}/token`)).status).toBe(405);
    expect((await post('/token', `x=${'a'.repeat(70_000)}`)).status).toBe(413);

    const credentials = client();
    const token = await accessTokens(credentials, {
      outbound: development,
      attempt: 1,
      cache: newAccessTokenCache(),
    }).current();
    const introspect = async () =>
      (await post('/introspect', new URLSearchParams({ token }).toString())).json() as Promise<{
        active: boolean;
        username?: string;
      }>;
    expect(await introspect()).toMatchObject({ active: true, username: credentials.subject });
    simulator.expireTokens(credentials.clientId);
    expect(await introspect()).toEqual({ active: false });
  });
});
