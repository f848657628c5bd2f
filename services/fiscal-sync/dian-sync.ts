// Colombia: the activities of a fiscal sync through DIAN e-mail: request DIAN's access token with the company's
// credentials, then import the AttachedDocument e-mails that arrived in the company's mailbox within the window: its
// IMAP mailbox, where each message is taken once and moved out once imported, or else its Maildir folder. Each
// message is read as a stream from its file (an IMAP message is downloaded to a temporary file first), and its files
// are imported one at a time as they are found, never held together.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import type { FiscalMailbox } from '../../db/fiscal/fiscal-mailbox.entity.ts';
import { findFiscalMailbox, recordMessageTaken, wasMessageTaken } from '../../db/fiscal/fiscal-mailbox.repository.ts';
import { companyEm, type EntityManager } from '../../db/orm.ts';
import { pastCap, reachesCap, type IntakeLimits } from '../../fiscal/intake-limits.ts';
import { mailboxItemEntries } from '../../fiscal/mail-documents.ts';
import { colombianWindowInstants } from '../../fiscal/sync-window.ts';
import type { OutboundPolicy } from '../../platform/outbound-policy.ts';
import { Refusal } from '../../platform/refusal.ts';
import type { SecretBox } from '../../platform/secret-box.ts';
import { requestDianAccessToken } from './dian-access-client.ts';
import { openMailbox, type MailboxSession, type WindowMessage } from './imap-mailbox.ts';
import { mailboxSettings } from './mailbox-settings.ts';
import {
  importEntries,
  newProgress,
  passOver,
  resumedProgress,
  startUnit,
  type ImportProgress,
  type SyncImportDeps,
} from './import-files.ts';
import { mailboxItems } from './maildir.ts';
import { loadRun, recordImportCounts, recordSyncProgress, type ImportCounts, type SyncSubject } from './runs.ts';

export interface DianSyncDeps extends SyncImportDeps {
  dianAuthUrl: string;
  /** The Maildir of companies without an IMAP mailbox; empty when there is none. */
  mailboxDir: string;
  /** Opens the sealed passwords and OAuth2 secrets of companies' IMAP mailboxes. */
  secrets: SecretBox;
  /** Where OAuth2 token endpoints may be. */
  outbound: OutboundPolicy;
  logger: Logger;
  /** The caps on reading the mailbox's messages. */
  intake: IntakeLimits;
}

/** Requests DIAN's access token with the company's NIT and legal representative, and records that the window is ready. */
export async function requestDianAccess(deps: DianSyncDeps, subject: SyncSubject): Promise<{ requestId: string }> {
  const { em, run } = await loadRun(deps.orm, subject);
  const credential = await em.findOne(FiscalCredential, {});
  if (!credential?.dianNit || !credential.dianLegalRepresentative) {
    throw new Refusal('DianCredentialsRefused', 'DIAN credentials are missing', {
      details: { code: 'dian_credentials_not_configured' },
    });
  }
  const token = await requestDianAccessToken(deps.dianAuthUrl, {
    nit: credential.dianNit,
    legalRepresentative: credential.dianLegalRepresentative,
  });
  await recordSyncProgress(deps.orm, {
    ...subject,
    message: `DIAN access token requested (${token.requestId}); waiting for e-mail from ${run.syncFrom} to ${run.syncTo}`,
  });
  return { requestId: token.requestId };
}

/**
 * Imports every fiscal XML of the e-mails that arrived in the run's window, heartbeating its progress: from the
 * company's IMAP mailbox when it registered one, else from its folder of the Maildir (`DIAN_MAILBOX_DIR`).
 */
export async function importMailboxWindow(deps: DianSyncDeps, subject: SyncSubject): Promise<MailboxWindowCounts> {
  const { em, run } = await loadRun(deps.orm, subject);
  const window = colombianWindowInstants({ from: run.syncFrom, to: run.syncTo });
  const mailbox = await findFiscalMailbox(em, true);
  if (mailbox) return importImapWindow(deps, subject, mailbox, window);
  if (!deps.mailboxDir)
    throw new Refusal(
      'MailboxNotConfigured',
      'The company has no IMAP mailbox (ops fiscal mailbox) and DIAN_MAILBOX_DIR is not configured',
      { details: { code: 'mailbox_not_configured' } },
    );
  return importMaildirWindow(deps, subject, window);
}

type MailboxWindowCounts = ImportCounts & { messages: number };
type Window = { fromInstant: Date; untilInstant: Date };

async function importMaildirWindow(deps: DianSyncDeps, subject: SyncSubject, window: Window) {
  const progress: ImportProgress = resumedProgress(deps.attempt) ?? newProgress();
  const limits = deps.intake;
  const stop = deps.attempt.keepReporting(() => progress);
  try {
    const items = await mailboxItems(deps.mailboxDir, subject.companyId, window);
    for (; progress.unit < items.length; startUnit(progress, progress.unit + 1)) {
      const item = items[progress.unit]!;
      if (reachesCap(item.size, 'messageBytes', limits)) {
        const detail = `${item.size} bytes, ${pastCap('messageBytes', limits)}`;
        await passOver(deps.orm, subject.companyId, progress.counts, [
          { name: item.name, reason: 'too_large', detail },
        ]);
      } else await importEntries(deps, subject.companyId, () => mailboxItemEntries(item, limits), progress);
      await recordImportCounts(deps.orm, subject, progress.counts);
    }
    return { ...progress.counts, messages: items.length };
  } finally {
    stop();
  }
}

/**
 * Where an IMAP import stands: `unit` is the UID from which messages are still to do (within `uidValidity`), `file`
 * how far into that message's files; moved messages leave the folder, so a position by index would not hold.
 */
interface ImapProgress extends ImportProgress {
  uidValidity: string;
  messages: number;
}

async function importImapWindow(
  deps: DianSyncDeps,
  subject: SyncSubject,
  mailbox: FiscalMailbox,
  window: Window,
): Promise<MailboxWindowCounts> {
  const resumed = resumedProgress(deps.attempt) as ImapProgress | null;
  const progress: ImapProgress = {
    ...newProgress(),
    messages: 0,
    uidValidity: '',
    ...resumed,
  };
  const stop = deps.attempt.keepReporting(() => progress);
  const em = companyEm(deps.orm, subject.companyId);
  const limits = deps.intake;
  // Where each message is downloaded to, one at a time.
  const folder = await mkdtemp(join(tmpdir(), 'ap-imap-message-'));
  try {
    const attempt = deps.attempt.number;
    const session = await openMailbox(mailboxSettings(mailbox, deps, attempt), attempt);
    try {
      // Another UIDVALIDITY renumbered the folder: start over; what was imported is passed over by its record.
      if (progress.uidValidity !== session.uidValidity) {
        progress.uidValidity = session.uidValidity;
        startUnit(progress, 0);
      }
      for (const message of await session.messagesIn(window)) {
        if (message.uid < progress.unit) continue;
        if (message.uid > progress.unit) startUnit(progress, message.uid);
        await importImapMessage(deps, em, subject, session, message, progress, limits, folder);
        startUnit(progress, message.uid + 1);
      }
      return { ...progress.counts, messages: progress.messages };
    } finally {
      await session.close();
    }
  } finally {
    stop();
    await rm(folder, { recursive: true, force: true });
  }
}

/** One message: refused past the size cap, passed over when already taken, else imported, recorded and moved. */
async function importImapMessage(
  deps: DianSyncDeps,
  em: EntityManager,
  subject: SyncSubject,
  session: MailboxSession,
  message: WindowMessage,
  progress: ImapProgress,
  limits: IntakeLimits,
  folder: string,
): Promise<void> {
  const name = `${message.uid}.eml`;
  const path = join(folder, name);
  const source = reachesCap(message.size, 'messageBytes', limits)
    ? null
    : await session.source(message.uid, limits.messageBytes, path);
  if (!source) {
    // Drops what was downloaded before the cap.
    await rm(path, { force: true });
    // Left where it is for a person to read: it is not downloaded, so it cannot be recorded as taken.
    const detail = `${message.size} bytes, ${pastCap('messageBytes', limits)}`;
    deps.logger.warn({ companyId: subject.companyId, uid: message.uid, messageId: message.messageId }, detail);
    await passOver(deps.orm, subject.companyId, progress.counts, [{ name, reason: 'too_large', detail }]);
    await recordImportCounts(deps.orm, subject, progress.counts);
    progress.messages += 1;
    return;
  }
  try {
    const key = { messageId: message.messageId, sha256: source.sha256 };
    if (!(await wasMessageTaken(em, key))) {
      await importEntries(deps, subject.companyId, () => mailboxItemEntries({ name, path }, limits), progress);
      await recordMessageTaken(em, { companyId: subject.companyId, runId: subject.runId, ...key });
      await recordImportCounts(deps.orm, subject, progress.counts);
      progress.messages += 1;
    }
  } finally {
    await rm(path, { force: true });
  }
  // Also a message taken before whose move did not happen (the worker stopped in between).
  await session.moveToImported(message.uid);
}
