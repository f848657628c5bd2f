// A company's IMAP mailbox (Gmail, Microsoft 365, any IMAP server) as the source of its DIAN e-mail: the messages of
// a window by arrival (INTERNALDATE), each message's raw source under a size cap, and the move of an imported one out
// of the folder that is read. What goes wrong is answered as a sync failure with a stable code and a message an
// operator can act on; an unreachable server is retried by the activity a few times first. A mailbox logs in with its
// password, or with OAuth2 access tokens over SASL XOAUTH2 (Microsoft 365, Google Workspace); a session the server ends
// in the middle of a sync (as Microsoft 365 does when its token expires) is opened again, with a new token when the
// server refuses the one it had.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { Refusal } from '../../platform/refusal.ts';
import { ImapFlow, type FetchMessageObject } from 'imapflow';
import { storableText } from '../../fiscal/storable-text.ts';
import type { AccessTokens } from './mailbox-oauth2.ts';

export interface MailboxSettings {
  host: string;
  port: number;
  /** Implicit TLS; otherwise STARTTLS when the server offers it (the certificate is checked either way). */
  tls: boolean;
  username: string;
  /** How it logs in: its password, or access tokens (SASL XOAUTH2). */
  login: { password: string } | { oauth2: AccessTokens };
  folder: string;
  importedFolder: string;
}

/** A message of the window, as listed before any of it is downloaded. */
export interface WindowMessage {
  uid: number;
  receivedAt: Date;
  /** RFC822.SIZE as the server reports it. */
  size: number;
  /** Empty when the message has none. */
  messageId: string;
}

/** Connection attempts of one sync before an unreachable server fails it (the activity's own retries, 1 s and 2 s apart). */
export const UNREACHABLE_ATTEMPTS = 3;
const DAY_MS = 86_400_000;

/** An open session on the folder a company's DIAN e-mail arrives in. */
export interface MailboxSession {
  /** UIDs are only comparable within one UIDVALIDITY: a resumed sync checks it before trusting a UID position. */
  uidValidity: string;
  /** The messages that arrived in [fromInstant, untilInstant), by UID. */
  messagesIn(window: { fromInstant: Date; untilInstant: Date }): Promise<WindowMessage[]>;
  /**
   * Streams the raw message into the file at `path`, hashing it as it comes; null when it reaches `maxBytes` (the
   * download stops there).
   */
  source(uid: number, maxBytes: number, path: string): Promise<{ size: number; sha256: string } | null>;
  /** Moves a message to the imported folder, creating that folder the first time. */
  moveToImported(uid: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Logs in and opens the folder; failures are refusals with the mailbox codes. When the server ends the
 * session, the operation that noticed it is run once more on a new one.
 */
export async function openMailbox(settings: MailboxSettings, attempt: number): Promise<MailboxSession> {
  return reopening(await connected(settings, attempt), () => connected(settings, attempt), settings, attempt);
}

interface Connection {
  client: ImapFlow;
  session: MailboxSession;
}

/** A session logged in and on the folder; with OAuth2, a token the server refuses is replaced once by a new one. */
async function connected(settings: MailboxSettings, attempt: number): Promise<Connection> {
  const { login } = settings;
  if ('password' in login) return connectedWith(settings, attempt, { user: settings.username, pass: login.password });
  const token = await login.oauth2.current();
  try {
    return await connectedWith(settings, attempt, { user: settings.username, accessToken: token });
  } catch (error) {
    if (!(error instanceof Refusal && error.code === 'MailboxAuthFailed')) throw error;
    // Revoked, or expired before its time: a new token, once. A refused client fails here with its own code.
    login.oauth2.refused(token);
    return connectedWith(settings, attempt, { user: settings.username, accessToken: await login.oauth2.current() });
  }
}

async function connectedWith(
  settings: MailboxSettings,
  attempt: number,
  auth: { user: string; pass: string } | { user: string; accessToken: string },
): Promise<Connection> {
  const client = new ImapFlow({
    host: settings.host,
    port: settings.port,
    secure: settings.tls,
    auth,
    // The library's log would carry the server's dialogue: ours says what matters, and never a password or token.
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 120_000,
  });
  // A dropped connection is reported by the command that was running; the event must not crash the worker.
  client.on('error', () => {});
  try {
    await client.connect();
    const opened = await client.mailboxOpen(settings.folder);
    return { client, session: session(client, settings, String(opened.uidValidity), attempt) };
  } catch (error) {
    await client.logout().catch(() => client.close());
    throw mailboxFailure(error, settings, attempt);
  }
}

/**
 * The session as the sync uses it. When the server has ended it (BYE, a closed connection), whatever the operation
 * answered cannot be trusted (imapflow answers a search on a closed connection as finding nothing): the operation runs
 * once more on a session opened again, in the same UIDVALIDITY, so that nothing is skipped and, since a message's
 * import is recorded before it is moved, nothing is imported twice.
 */
function reopening(
  first: Connection,
  reopen: () => Promise<Connection>,
  settings: MailboxSettings,
  attempt: number,
): MailboxSession {
  let current = first;
  const uidValidity = first.session.uidValidity;
  const closed = () =>
    mailboxFailure(
      Object.assign(new Error('The server closed the connection'), { code: 'NoConnection' }),
      settings,
      attempt,
    );
  async function run<T>(operation: (session: MailboxSession) => Promise<T>): Promise<T> {
    const used = current;
    try {
      const answer = await operation(used.session);
      if (used.client.usable) return answer;
    } catch (error) {
      if (used.client.usable) throw error;
    }
    await used.session.close();
    current = await reopen();
    if (current.session.uidValidity !== uidValidity) {
      await current.session.close();
      // The folder was renumbered meanwhile: the activity's next attempt starts it over.
      throw Refusal.retryable(
        'MailboxRenumbered',
        `The folder "${settings.folder}" of ${settings.username} changed UIDVALIDITY while it was read`,
        { code: 'mailbox_renumbered' },
      );
    }
    const again = current;
    const answer = await operation(again.session);
    if (!again.client.usable) throw closed();
    return answer;
  }
  return {
    uidValidity,
    messagesIn: (window) => run((session) => session.messagesIn(window)),
    source: (uid, maxBytes, path) => run((session) => session.source(uid, maxBytes, path)),
    moveToImported: (uid) => run((session) => session.moveToImported(uid)),
    close: () => current.session.close(),
  };
}

function session(client: ImapFlow, settings: MailboxSettings, uidValidity: string, attempt: number): MailboxSession {
  let importedFolderReady = false;
  const failure = (error: unknown) => mailboxFailure(error, settings, attempt);
  return {
    uidValidity,
    async messagesIn(window) {
      try {
        // SEARCH dates are whole days in the server's zone: ask a day more on each side, then keep the exact instants.
        const uids = await client.search(
          {
            since: new Date(window.fromInstant.getTime() - DAY_MS),
            before: new Date(window.untilInstant.getTime() + DAY_MS),
          },
          { uid: true },
        );
        if (!uids || uids.length === 0) return [];
        const messages: WindowMessage[] = [];
        for await (const message of client.fetch(
          uids.join(','),
          { uid: true, internalDate: true, size: true, envelope: true },
          { uid: true },
        )) {
          const listed = windowMessage(message);
          if (listed.receivedAt >= window.fromInstant && listed.receivedAt < window.untilInstant) messages.push(listed);
        }
        return messages.sort((a, b) => a.uid - b.uid);
      } catch (error) {
        throw failure(error);
      }
    },
    async source(uid, maxBytes, path) {
      try {
        const { content } = await client.download(String(uid), undefined, {
          uid: true,
          maxBytes: maxBytes + 1,
          chunkSize: 1024 * 1024,
        });
        if (!content) throw new Error(`Message ${uid} is no longer in ${settings.folder}`);
        const file = createWriteStream(path);
        const hash = createHash('sha256');
        let size = 0;
        try {
          for await (const chunk of content as AsyncIterable<Buffer>) {
            size += chunk.length;
            if (size >= maxBytes) {
              content.destroy();
              return null;
            }
            hash.update(chunk);
            if (!file.write(chunk)) await new Promise<void>((resolve) => file.once('drain', () => resolve()));
          }
        } finally {
          file.end();
          await finished(file);
        }
        return { size, sha256: hash.digest('hex') };
      } catch (error) {
        if ((error as { code?: string }).code === 'DownloadOverflow') return null;
        throw failure(error);
      }
    },
    async moveToImported(uid) {
      try {
        if (!importedFolderReady) {
          // Answers `created: false` when it exists already.
          await client.mailboxCreate(settings.importedFolder);
          importedFolderReady = true;
        }
        const moved = await client.messageMove(String(uid), settings.importedFolder, { uid: true });
        if (!moved) throw new Error(`The server did not move message ${uid} to ${settings.importedFolder}`);
      } catch (error) {
        throw failure(error);
      }
    },
    async close() {
      await client.logout().catch(() => client.close());
    },
  };
}

function windowMessage(message: FetchMessageObject): WindowMessage {
  return {
    uid: message.uid,
    receivedAt: new Date(message.internalDate ?? 0),
    size: message.size ?? 0,
    // Outside text, kept in the record of messages taken.
    messageId: storableText(message.envelope?.messageId ?? '', 1000),
  };
}

// Node's certificate checks and OpenSSL's handshake errors, and imapflow's own for a connection closed during TLS.
const TLS_CODES =
  /^(ERR_SSL_|ERR_TLS_|UNABLE_TO_|CERT_|DEPTH_ZERO_|SELF_SIGNED_|ClosedAfterConnectTLS|UPGRADE_TIMEOUT|HOSTNAME_MISMATCH)/;
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EPIPE',
  'CONNECT_TIMEOUT',
  'GREETING_TIMEOUT',
  'ETIMEOUT',
  'NoConnection',
  'EConnectionClosed',
  'ClosedAfterConnectText',
]);

/**
 * What went wrong with the mailbox, as the sync's failure: bad credentials, TLS, a missing folder are final; an
 * unreachable server is retried until `UNREACHABLE_ATTEMPTS`, then final too. Anything else is retried as any
 * activity failure is.
 */
export function mailboxFailure(error: unknown, settings: MailboxSettings, attempt: number): unknown {
  if (error instanceof Refusal) return error;
  const failure = error as {
    code?: string;
    authenticationFailed?: boolean;
    mailboxMissing?: boolean;
    responseText?: string;
    message?: string;
  };
  const server = `${settings.host}:${settings.port}`;
  const reason = failure.responseText || failure.message || String(error);
  if (failure.authenticationFailed)
    return new Refusal(
      'MailboxAuthFailed',
      'password' in settings.login
        ? `The mail server ${server} refused the login of ${settings.username} (${reason}): check the user and the app password (ops fiscal mailbox)`
        : `The mail server ${server} refused the OAuth2 login of ${settings.username} with a new access token (${reason}): ` +
            `check that the app may open this mailbox ` +
            `(Microsoft 365: IMAP.AccessAsApp, and its service principal given the mailbox with Add-MailboxPermission; ` +
            `Google: the service account's domain-wide delegation for https://mail.google.com/)`,
      { details: { code: 'mailbox_auth_failed' } },
    );
  if (failure.code && TLS_CODES.test(failure.code))
    return new Refusal(
      'MailboxTlsFailed',
      `No TLS connection with the mail server ${server} (${failure.code}: ${reason.split('\n')[0]}): ` +
        `check --tls (true for an implicit-TLS port such as 993, false for 143) and the server's certificate`,
      { details: { code: 'mailbox_tls_failed' } },
    );
  if (failure.mailboxMissing)
    return new Refusal(
      'MailboxFolderMissing',
      `The mailbox ${settings.username} on ${server} has no folder "${settings.folder}"`,
      { details: { code: 'mailbox_folder_missing' } },
    );
  if (failure.code && UNREACHABLE_CODES.has(failure.code)) {
    const message = `The mail server ${server} could not be reached (${failure.code}), attempt ${attempt} of ${UNREACHABLE_ATTEMPTS}`;
    return attempt >= UNREACHABLE_ATTEMPTS
      ? new Refusal('MailboxUnreachable', message, { details: { code: 'mailbox_unreachable' } })
      : Refusal.retryable('MailboxUnreachable', message, { code: 'mailbox_unreachable' });
  }
  return error;
}
