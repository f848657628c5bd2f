import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { Company } from '../companies/company.entity.ts';
import { uuidv7 } from '../ids.ts';
import type { EntityManager } from '../orm.ts';
import { FiscalMailboxMessage } from './fiscal-mailbox-message.entity.ts';
import { FiscalMailbox } from './fiscal-mailbox.entity.ts';

export interface MailboxChanges {
  host: string;
  port: number;
  tls: boolean;
  username: string;
  folder: string;
  importedFolder: string;
  /** A password, or OAuth2: registering one clears the other. */
  login:
    | { sealedPassword: string }
    | { oauth2: { grant: string; tokenUrl: string; clientId: string; scope: string; sealedSecret: string } };
}

/** Registers (or replaces) the company's IMAP mailbox; `em` is scoped to the company. */
export async function setFiscalMailbox(
  em: EntityManager,
  company: Company,
  changes: MailboxChanges,
): Promise<FiscalMailbox> {
  const { login, ...settings } = changes;
  const oauth2 = 'oauth2' in login ? login.oauth2 : null;
  const row = {
    ...settings,
    sealedPassword: 'sealedPassword' in login ? login.sealedPassword : null,
    oauthGrant: oauth2?.grant ?? null,
    oauthTokenUrl: oauth2?.tokenUrl ?? null,
    oauthClientId: oauth2?.clientId ?? null,
    oauthScope: oauth2?.scope ?? null,
    sealedOauthSecret: oauth2?.sealedSecret ?? null,
  };
  const existing = await em.findOne(FiscalMailbox, {});
  const mailbox = existing ? em.assign(existing, row) : em.create(FiscalMailbox, { company, ...row });
  await em.flush();
  return mailbox;
}

/** The company's IMAP mailbox, with its sealed password or OAuth2 secret when `withSecrets`; null when none is registered. */
export async function findFiscalMailbox(em: EntityManager, withSecrets = false): Promise<FiscalMailbox | null> {
  return em.findOne(FiscalMailbox, {}, withSecrets ? { populate: ['sealedPassword', 'sealedOauthSecret'] } : {});
}

/** True when this message (same Message-ID, same bytes) was imported by an earlier run or attempt. */
export async function wasMessageTaken(em: EntityManager, message: { messageId: string; sha256: string }) {
  return (await em.count(FiscalMailboxMessage, message)) > 0;
}

/** Records that a message's documents were imported; a concurrent or repeated record is the same fact. */
export async function recordMessageTaken(
  em: EntityManager,
  input: { companyId: string; messageId: string; sha256: string; runId: string },
): Promise<void> {
  try {
    await em.insert(FiscalMailboxMessage, {
      id: uuidv7(),
      company: input.companyId,
      messageId: input.messageId,
      sha256: input.sha256,
      runId: input.runId,
      importedAt: new Date(),
    });
  } catch (error) {
    if (!(error instanceof UniqueConstraintViolationException)) throw error;
  }
}
