// The companies' mailbox of forwarded DIAN e-mail, as a directory in Maildir layout: `<dir>/<companyRef>/new/` and
// `cur/` hold one message per file (`.eml` or Maildir-named), and a bare `.zip` or `.xml` dropped in `<dir>/<companyRef>/`
// is read too. Any mail agent can deliver there (Postfix virtual delivery, getmail, fetchmail, an SES-to-disk job).
// Arrival is the file's modification time, which delivery sets. The service only reads: it never moves nor deletes
// mail, so a sync can be repeated and retention stays the mail system's business. Items are read as streams by the
// intake (`fiscal/mail-documents.ts`), never whole.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { UUID_PATTERN } from '../../db/ids.ts';
import { storableName } from '../../fiscal/storable-text.ts';

export interface MailboxItem {
  path: string;
  /** Relative to the company's mailbox, e.g. `new/1700000000.M1P2.host`, made storable (a file name may hold controls). */
  name: string;
  receivedAt: Date;
  /** As stored, so that one past the message cap is refused without being read. */
  size: number;
}

/** The items delivered to a company's mailbox in [from, until), oldest first; none when it has no mailbox yet. */
export async function mailboxItems(
  dir: string,
  companyId: string,
  window: { fromInstant: Date; untilInstant: Date },
): Promise<MailboxItem[]> {
  // The company reference names the folder: refuse anything else rather than walk out of the mailbox.
  if (!UUID_PATTERN.test(companyId)) throw new Error(`Not a company reference: ${companyId}`);
  const root = join(dir, companyId.toLowerCase());
  const items: MailboxItem[] = [];
  for (const folder of ['new', 'cur', '']) {
    let names: string[];
    try {
      names = (await readdir(join(root, folder), { withFileTypes: true }))
        .filter((entry) => entry.isFile() && !entry.name.startsWith('.'))
        .map((entry) => entry.name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    for (const name of names) {
      // Files in the company folder itself are documents dropped by hand; messages there must be in new/ or cur/.
      if (folder === '' && !/\.(zip|xml|eml)$/i.test(name)) continue;
      const path = join(root, folder, name);
      const { mtime: receivedAt, size } = await stat(path);
      if (receivedAt >= window.fromInstant && receivedAt < window.untilInstant)
        items.push({ path, name: storableName(folder ? `${folder}/${name}` : name), receivedAt, size });
    }
  }
  return items.sort((a, b) => a.receivedAt.getTime() - b.receivedAt.getTime() || a.name.localeCompare(b.name));
}
