// Colombia: the activities of a fiscal sync through DIAN e-mail: request DIAN's access token with the company's
// credentials, then import the AttachedDocument e-mails that arrived in the company's mailbox within the window.
import { ApplicationFailure } from '@temporalio/common';
import { FiscalCredential } from '../../db/fiscal/fiscal-credential.entity.ts';
import { documentsInMailboxItem } from '../../fiscal/mail-documents.ts';
import { countSkips } from '../../fiscal/package-entries.ts';
import { colombianWindowInstants } from '../../fiscal/sync-window.ts';
import type { ImportDeps } from '../documents/import-fiscal-document.ts';
import { requestDianAccessToken } from './dian-access-client.ts';
import { importFiles, keepHeartbeating, resumedProgress, type ImportProgress } from './import-files.ts';
import { mailboxItems, readMailboxItem } from './maildir.ts';
import { loadRun, noCounts, recordSyncProgress, type ImportCounts, type SyncSubject } from './runs.ts';

export interface DianSyncDeps extends ImportDeps {
  dianAuthUrl: string;
  /** Empty when no mailbox is configured. */
  mailboxDir: string;
}

/** Requests DIAN's access token with the company's NIT and legal representative, and records that the window is ready. */
export async function requestDianAccess(deps: DianSyncDeps, subject: SyncSubject): Promise<{ requestId: string }> {
  const { em, run } = await loadRun(deps.orm, subject);
  const credential = await em.findOne(FiscalCredential, {});
  if (!credential?.dianNit || !credential.dianLegalRepresentative) {
    throw ApplicationFailure.nonRetryable('DIAN credentials are missing', 'DianCredentialsRefused', {
      code: 'dian_credentials_not_configured',
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

/** Imports every fiscal XML of the e-mails that arrived in the run's window, heartbeating its progress. */
export async function importMailboxWindow(
  deps: DianSyncDeps,
  subject: SyncSubject,
): Promise<ImportCounts & { messages: number }> {
  if (!deps.mailboxDir)
    throw ApplicationFailure.nonRetryable('DIAN_MAILBOX_DIR is not configured', 'MailboxNotConfigured', {
      code: 'mailbox_not_configured',
    });
  const progress: ImportProgress = resumedProgress() ?? { unit: 0, file: 0, counts: noCounts() };
  const stop = keepHeartbeating(() => progress);
  try {
    const { run } = await loadRun(deps.orm, subject);
    const items = await mailboxItems(
      deps.mailboxDir,
      subject.companyId,
      colombianWindowInstants({ from: run.syncFrom, to: run.syncTo }),
    );
    for (; progress.unit < items.length; progress.unit++, progress.file = 0) {
      const item = items[progress.unit]!;
      const { files, skipped } = documentsInMailboxItem(item.name, await readMailboxItem(item));
      if (progress.file === 0) countSkips(progress.counts.skipped, skipped);
      await importFiles(deps, subject.companyId, files, progress.counts, progress.file, (next) => {
        progress.file = next;
      });
    }
    return { ...progress.counts, messages: items.length };
  } finally {
    stop();
  }
}
