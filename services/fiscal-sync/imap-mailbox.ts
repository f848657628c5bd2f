// A company's IMAP mailbox (Gmail, Microsoft 365, any IMAP server) as the source of its DIAN e-mail: the messages of
// a window by arrival (INTERNALDATE), each message's raw source under a size cap, and the move of an imported one out
// of the folder that is read. What goes wrong is answered as a sync failure with a stable code and a message an
// operator can act on; an unreachable server is retried by the activity a few times first.
import { ApplicationFailure } from '@temporalio/common';
import { ImapFlow, type FetchMessageObject } from 'imapflow';

export interface MailboxSettings {
  host: string;
  port: number;
  /** Implicit TLS; otherwise STARTTLS when the server offers it (the certificate is checked either way). */
  tls: boolean;
  username: string;
  password: string;
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
  /** The raw message; null when it turns out larger than `maxBytes` (the download stops there). */
  source(uid: number, maxBytes: number): Promise<Uint8Array | null>;
  /** Moves a message to the imported folder, creating that folder the first time. */
  moveToImported(uid: number): Promise<void>;
  close(): Promise<void>;
}

/** Logs in and opens the folder; failures are ApplicationFailures with the mailbox codes. */
export async function openMailbox(settings: MailboxSettings, attempt: number): Promise<MailboxSession> {
  const client = new ImapFlow({
    host: settings.host,
    port: settings.port,
    secure: settings.tls,
    auth: { user: settings.username, pass: settings.password },
    // The library's log would carry the server's dialogue: ours says what matters, and never the password.
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
    return session(client, settings, String(opened.uidValidity), attempt);
  } catch (error) {
    await client.logout().catch(() => client.close());
    throw mailboxFailure(error, settings, attempt);
  }
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
    async source(uid, maxBytes) {
      try {
        const { content } = await client.download(String(uid), undefined, {
          uid: true,
          maxBytes: maxBytes + 1,
          chunkSize: 1024 * 1024,
        });
        if (!content) throw new Error(`Message ${uid} is no longer in ${settings.folder}`);
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of content as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > maxBytes) {
            content.destroy();
            return null;
          }
          chunks.push(chunk);
        }
        return new Uint8Array(Buffer.concat(chunks));
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
    messageId: message.envelope?.messageId ?? '',
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
  if (error instanceof ApplicationFailure) return error;
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
    return ApplicationFailure.nonRetryable(
      `The mail server ${server} refused the login of ${settings.username} (${reason}): check the user and the app password (ops fiscal mailbox)`,
      'MailboxAuthFailed',
      { code: 'mailbox_auth_failed' },
    );
  if (failure.code && TLS_CODES.test(failure.code))
    return ApplicationFailure.nonRetryable(
      `No TLS connection with the mail server ${server} (${failure.code}: ${reason.split('\n')[0]}): check --tls (true for an implicit-TLS port such as 993, false for 143) and the server's certificate`,
      'MailboxTlsFailed',
      { code: 'mailbox_tls_failed' },
    );
  if (failure.mailboxMissing)
    return ApplicationFailure.nonRetryable(
      `The mailbox ${settings.username} on ${server} has no folder "${settings.folder}"`,
      'MailboxFolderMissing',
      { code: 'mailbox_folder_missing' },
    );
  if (failure.code && UNREACHABLE_CODES.has(failure.code)) {
    const message = `The mail server ${server} could not be reached (${failure.code}), attempt ${attempt} of ${UNREACHABLE_ATTEMPTS}`;
    return attempt >= UNREACHABLE_ATTEMPTS
      ? ApplicationFailure.nonRetryable(message, 'MailboxUnreachable', { code: 'mailbox_unreachable' })
      : ApplicationFailure.retryable(message, 'MailboxUnreachable', { code: 'mailbox_unreachable' });
  }
  return error;
}
