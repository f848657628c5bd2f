import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { Company } from '../companies/company.entity.ts';
import { uuidKey } from '../ids.ts';

/**
 * A message of a company's IMAP mailbox whose documents were imported: taken once, whatever later runs find. Keyed by
 * its Message-ID and the SHA-256 of its raw bytes, so that another message reusing a Message-ID is not passed over.
 */
export const FiscalMailboxMessage = defineEntity({
  name: 'FiscalMailboxMessage',
  tableName: 'fiscal_mailbox_messages',
  uniques: [{ properties: ['company', 'messageId', 'sha256'] }],
  properties: {
    id: uuidKey(),
    company: () => p.manyToOne(Company),
    /** As its header says, angle brackets included; empty when it has none. */
    messageId: p.text(),
    sha256: p.string(),
    /** The sync run that imported it. */
    runId: p.uuid(),
    importedAt: p.datetime().onCreate(() => new Date()),
  },
});
export type FiscalMailboxMessage = InferEntity<typeof FiscalMailboxMessage>;
