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
  sealedPassword: string;
  folder: string;
  importedFolder: string;
}

/** Registers (or replaces) the company's IMAP mailbox; `em` is scoped to the company. */
export async function setFiscalMailbox(
  em: EntityManager,
  company: Company,
  changes: MailboxChanges,
): Promise<FiscalMailbox> {
  const existing = await em.findOne(FiscalMailbox, {});
  const mailbox = existing ? em.assign(existing, changes) : em.create(FiscalMailbox, { company, ...changes });
  await em.flush();
  return mailbox;
}

/** The company's IMAP mailbox, with its sealed password when `withPassword`; null when none is registered. */
export async function findFiscalMailbox(em: EntityManager, withPassword = false): Promise<FiscalMailbox | null> {
  return em.findOne(FiscalMailbox, {}, withPassword ? { populate: ['sealedPassword'] } : {});
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
