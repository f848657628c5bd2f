// How a registered mailbox logs in, from `ops fiscal mailbox`'s flags: a password, or OAuth2 credentials the product
// obtains access tokens with (SASL XOAUTH2). Secrets come from files (a flag would show in the shell history and the
// process list) and are sealed with the service's secret key; the token endpoint must pass the outbound policy.
//
// - Microsoft 365: `--tenant T` builds the tenant's token endpoint (https://login.microsoftonline.com/T/oauth2/v2.0/token)
//   and the scope defaults to https://outlook.office365.com/.default; `--client-id` and `--client-secret-file` are the
//   app registration's. `--token-url` gives any other endpoint whole (a national cloud, another provider), with `--scope`.
// - Google Workspace: `--service-account-file` is the service account's JSON key (client_email, private_key,
//   token_uri); the product signs its own assertions (JWT-bearer grant) acting as `--user`; the scope defaults to
//   https://mail.google.com/.
import { createPrivateKey } from 'node:crypto';
import type { FiscalMailbox } from '../../db/fiscal/fiscal-mailbox.entity.ts';
import type { MailboxChanges } from '../../db/fiscal/fiscal-mailbox.repository.ts';
import { judgeReceiver, type OutboundPolicy } from '../../platform/outbound-policy.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import {
  GOOGLE_MAIL_SCOPE,
  GOOGLE_TOKEN_URL,
  MICROSOFT_IMAP_SCOPE,
  microsoftTokenUrl,
} from '../../services/fiscal-sync/mailbox-oauth2.ts';
import { optional, required } from '../arguments.ts';
import type { CommandInput } from '../command.ts';
import { CliError, usage } from '../errors.ts';
import { readBounded } from '../files.ts';

export const MAILBOX_LOGIN_OPTIONS = {
  'password-file': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret-file': { type: 'string' },
  tenant: { type: 'string' },
  'token-url': { type: 'string' },
  scope: { type: 'string' },
  'service-account-file': { type: 'string' },
} as const;

export const MAILBOX_LOGIN_USAGE =
  '(--password-file FILE | --client-id ID --client-secret-file FILE (--tenant TENANT | --token-url URL --scope SCOPE) | --service-account-file KEY.json) [--scope SCOPE]';

const OAUTH2_FLAGS = ['client-id', 'client-secret-file', 'tenant', 'token-url', 'scope', 'service-account-file'];
/** Visible ASCII, as an OAuth2 client id and scope tokens are (RFC 6749, appendix A). */
const VISIBLE = /^[\x21-\x7e]{1,255}$/;
const TENANT = /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}$/;
/** Microsoft's multi-tenant aliases: the client-credentials grant needs the tenant itself. */
const NOT_A_TENANT = new Set(['common', 'organizations', 'consumers']);

/** A secret from a file, without the file's final newline. */
async function secretFile(path: string, maxBytes: number, flag: string, what: string): Promise<string> {
  const secret = (await readBounded(path, maxBytes, `${flag.replace(/-/g, '_')}_too_large`))
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (secret === '') throw usage(`--${flag} must hold ${what}`);
  return secret;
}

/** The login the flags describe, its secret sealed: exactly one of a password and OAuth2. */
export async function mailboxLogin(
  input: CommandInput,
  secrets: SecretBox,
  outbound: OutboundPolicy,
): Promise<MailboxChanges['login']> {
  const given = OAUTH2_FLAGS.filter((flag) => optional(input, flag) !== undefined);
  if (optional(input, 'password-file') !== undefined) {
    if (given.length > 0)
      throw usage(`--password-file and OAuth2 (${given.map((flag) => `--${flag}`).join(', ')}) exclude each other`);
    const password = await secretFile(
      required(input, 'password-file'),
      4096,
      'password-file',
      'the password (an app password for Gmail)',
    );
    return { sealedPassword: secrets.seal(password) };
  }
  if (given.length === 0)
    throw usage('--password-file, --client-id with --client-secret-file, or --service-account-file is required');
  const oauth2 =
    optional(input, 'service-account-file') !== undefined ? await serviceAccount(input) : await appRegistration(input);
  await checkTokenUrl(oauth2.tokenUrl, outbound);
  const { secret, ...rest } = oauth2;
  return { oauth2: { ...rest, sealedSecret: secrets.seal(secret) } };
}

interface OAuth2Flags {
  grant: 'client_credentials' | 'jwt_bearer';
  tokenUrl: string;
  clientId: string;
  scope: string;
  secret: string;
}

function scopeFlag(input: CommandInput, fallback: string | null): string {
  const scope = optional(input, 'scope') ?? fallback;
  if (scope === null) throw usage('--scope is required with --token-url (Microsoft 365 with --tenant: none is needed)');
  if (scope.length > 1000 || !scope.split(' ').every((part) => VISIBLE.test(part)))
    throw usage('--scope must be one or more scopes separated by single spaces');
  return scope;
}

/** An app registration (client-credentials grant): Microsoft 365 by tenant, or any token endpoint given whole. */
async function appRegistration(input: CommandInput): Promise<OAuth2Flags> {
  if (optional(input, 'client-id') === undefined || optional(input, 'client-secret-file') === undefined)
    throw usage('--client-id and --client-secret-file go together (or --service-account-file for Google Workspace)');
  const clientId = required(input, 'client-id');
  if (!VISIBLE.test(clientId)) throw usage('--client-id must be the application (client) id');
  const tenant = optional(input, 'tenant');
  const tokenUrl = optional(input, 'token-url');
  if ((tenant === undefined) === (tokenUrl === undefined))
    throw usage('Give --tenant (Microsoft 365) or --token-url (the token endpoint, whole), not both');
  if (tenant !== undefined && (!TENANT.test(tenant) || NOT_A_TENANT.has(tenant.toLowerCase())))
    throw usage(
      "--tenant must be the Microsoft Entra tenant's id or one of its domains (contoso.onmicrosoft.com); common, organizations and consumers cannot grant an app its own token",
    );
  const secret = await secretFile(
    required(input, 'client-secret-file'),
    4096,
    'client-secret-file',
    'the client secret (its value, not its id)',
  );
  return {
    grant: 'client_credentials',
    tokenUrl: tenant !== undefined ? microsoftTokenUrl(tenant) : tokenUrl!,
    clientId,
    scope: scopeFlag(input, tenant !== undefined ? MICROSOFT_IMAP_SCOPE : null),
    secret,
  };
}

/** A Google service account's JSON key (JWT-bearer grant, acting as the mailbox's user). */
async function serviceAccount(input: CommandInput): Promise<OAuth2Flags> {
  for (const flag of ['client-id', 'client-secret-file', 'tenant'])
    if (optional(input, flag) !== undefined)
      throw usage(`--service-account-file carries its own client; --${flag} does not go with it`);
  const path = required(input, 'service-account-file');
  const text = await secretFile(path, 64 * 1024, 'service-account-file', "the service account's JSON key");
  let key: Record<string, unknown>;
  try {
    key = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new CliError('service_account_unreadable', `${path} is not a service account's JSON key`);
  }
  const clientEmail = key.client_email;
  const privateKey = key.private_key;
  if (key.type !== 'service_account' || typeof clientEmail !== 'string' || typeof privateKey !== 'string')
    throw new CliError(
      'service_account_unreadable',
      `${path} is not a service account's JSON key (type service_account, client_email, private_key)`,
    );
  try {
    if (createPrivateKey(privateKey).asymmetricKeyType !== 'rsa') throw new Error('not RSA');
  } catch {
    throw new CliError('service_account_unreadable', `The private_key of ${path} is not an RSA private key`);
  }
  const keyTokenUrl = typeof key.token_uri === 'string' ? key.token_uri : GOOGLE_TOKEN_URL;
  return {
    grant: 'jwt_bearer',
    tokenUrl: optional(input, 'token-url') ?? keyTokenUrl,
    clientId: clientEmail,
    scope: scopeFlag(input, GOOGLE_MAIL_SCOPE),
    secret: privateKey,
  };
}

/** https at a public or allowed address (http on loopback in development), as webhook receivers. */
async function checkTokenUrl(tokenUrl: string, outbound: OutboundPolicy): Promise<void> {
  let url: URL;
  try {
    url = new URL(tokenUrl);
  } catch {
    throw usage(`--token-url must be a URL: ${tokenUrl}`);
  }
  if (url.username || url.password || url.hash)
    throw usage('--token-url must not carry credentials or a fragment: the secret goes in its own file');
  // A name that does not resolve now is accepted: each token request resolves and judges it again.
  const verdict = await judgeReceiver(url, outbound);
  if ('refusal' in verdict) throw new CliError('invalid_url', `The token endpoint ${tokenUrl}: ${verdict.refusal}`);
}

/** The OAuth2 settings as operators see them: never the secret. */
export function presentOAuth2(mailbox: FiscalMailbox) {
  return mailbox.oauthGrant
    ? {
        oauth2: {
          grant: mailbox.oauthGrant,
          token_url: mailbox.oauthTokenUrl,
          client_id: mailbox.oauthClientId,
          scope: mailbox.oauthScope,
        },
      }
    : {};
}
