// A registered mailbox as a sync opens it: its sealed password or OAuth2 secret opened with the deployment's key, and
// for OAuth2 the access tokens of its credentials (kept by the worker between syncs).
import { Refusal } from '../../platform/refusal.ts';
import type { FiscalMailbox } from '../../db/fiscal/fiscal-mailbox.entity.ts';
import type { OutboundPolicy, Resolve } from '../../platform/outbound-policy.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import type { MailboxSettings } from './imap-mailbox.ts';
import { accessTokens, OAUTH2_GRANTS, type AccessTokenCache, type OAuth2Grant } from './mailbox-oauth2.ts';

export interface MailboxSettingsDeps {
  secrets: SecretBox;
  outbound: OutboundPolicy;
  resolve?: Resolve;
  /** The worker's tokens unless a test gives its own. */
  tokenCache?: AccessTokenCache;
}

/** `mailbox` loaded with its sealed secrets (findFiscalMailbox with `withSecrets`). */
export function mailboxSettings(mailbox: FiscalMailbox, deps: MailboxSettingsDeps, attempt: number): MailboxSettings {
  const base = {
    host: mailbox.host,
    port: mailbox.port,
    tls: mailbox.tls,
    username: mailbox.username,
    folder: mailbox.folder,
    importedFolder: mailbox.importedFolder,
  };
  const grant = mailbox.oauthGrant;
  if (!grant) return { ...base, login: { password: opened(deps.secrets, mailbox.sealedPassword, 'password') } };
  if (!OAUTH2_GRANTS.includes(grant as OAuth2Grant) || !mailbox.oauthTokenUrl || !mailbox.oauthClientId)
    throw new Refusal(
      'MailboxOAuthRefused',
      'The mailbox has incomplete OAuth2 settings: register it again (ops fiscal mailbox)',
      { details: { code: 'mailbox_oauth_refused' } },
    );
  const tokens = accessTokens(
    {
      grant: grant as OAuth2Grant,
      tokenUrl: mailbox.oauthTokenUrl,
      clientId: mailbox.oauthClientId,
      secret: opened(deps.secrets, mailbox.sealedOauthSecret, 'OAuth2 secret'),
      scope: mailbox.oauthScope ?? '',
      subject: mailbox.username,
    },
    {
      outbound: deps.outbound,
      attempt,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
      ...(deps.tokenCache ? { cache: deps.tokenCache } : {}),
    },
  );
  return { ...base, login: { oauth2: tokens } };
}

function opened(secrets: SecretBox, sealed: string | null | undefined, what: string): string {
  try {
    if (!sealed) throw new Error('none');
    return secrets.open(sealed);
  } catch {
    // Sealed under another WEBHOOK_SECRET_KEY: no retry will open it.
    throw new Refusal(
      'MailboxPasswordUnreadable',
      `The mailbox ${what} cannot be opened with this deployment's WEBHOOK_SECRET_KEY: register the mailbox again (ops fiscal mailbox)`,
      { details: { code: 'mailbox_password_unreadable' } },
    );
  }
}
