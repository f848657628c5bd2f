// The intake log of refused files: what fiscal sync passed over and why, recorded once per file so that a sync goes
// on past a bad file, and the operator can see what was not taken (`ops fiscal intake`).
import { createHash } from 'node:crypto';
import { IntakeRefusal } from '../../db/fiscal/intake-refusal.entity.ts';
import { uuidv7 } from '../../db/ids.ts';
import { companyEm, type Orm } from '../../db/orm.ts';

export interface LoggedRefusal {
  /** Where the file was: `<mail item or package>/<attachment>/<entry>`. */
  name: string;
  reason: string;
  detail?: string | null;
  /** The file's bytes when there were any to read. */
  bytes?: Uint8Array | null;
}

/** Records refusals; a file already recorded (same place, same bytes) adds nothing. */
export async function recordRefusals(orm: Orm, companyId: string, refusals: readonly LoggedRefusal[]): Promise<void> {
  if (refusals.length === 0) return;
  const em = companyEm(orm, companyId);
  const now = new Date();
  // A bulk insert runs no entity hooks: ids and times are set here.
  const rows = refusals.map((refusal) => ({
    id: uuidv7(),
    company: companyId,
    name: refusal.name,
    fingerprint: createHash('sha256')
      .update(refusal.bytes ?? refusal.name)
      .digest('hex'),
    reason: refusal.reason,
    detail: refusal.detail ?? null,
    recordedAt: now,
  }));
  await em
    .createQueryBuilder(IntakeRefusal)
    .insert(rows)
    .onConflict(['company', 'name', 'fingerprint'])
    .ignore()
    .execute();
}

/** A company's refusals, newest first. */
export async function listRefusals(orm: Orm, companyId: string, limit: number): Promise<IntakeRefusal[]> {
  return companyEm(orm, companyId).find(IntakeRefusal, {}, { orderBy: { recordedAt: 'desc', id: 'desc' }, limit });
}
