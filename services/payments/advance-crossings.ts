import { LockMode } from '@mikro-orm/core';
import type { AccountingEntry } from '../../db/accounting/accounting-entry.entity.ts';
import { ActivityLog } from '../../db/documents/activity-log.entity.ts';
import type { EntityManager } from '../../db/orm.ts';
import { leftToPay } from '../../db/payments/new-payment.ts';
import { Payable } from '../../db/payments/payable.entity.ts';
import { Payment } from '../../db/payments/payment.entity.ts';
import { settle } from './payments.ts';

/**
 * What the ERP registered of a voucher's advance crossings, on the invoice: the crossed amount counts as paid on its
 * payables (oldest installment first) and lowers what is left of each advance crossed. Runs once, at the voucher's
 * first registration. A crossing never makes a payable owe less than nothing: what payments already processed or under
 * way leave no room for is not applied, and the log says how much.
 */
export async function applyAdvanceCrossings(em: EntityManager, entry: AccountingEntry): Promise<void> {
  const document = entry.document;
  const crossings = entry.advanceCrossings.filter(
    (crossing) => crossing.amount_cents > 0 && crossing.currency === document.currency,
  );
  const crossed = BigInt(crossings.reduce((sum, crossing) => sum + crossing.amount_cents, 0));
  if (crossed === 0n) return;
  // Locked like a new payment locks its payable: a payment racing with the crossing waits and then sees it.
  const payables = await em.find(
    Payable,
    { document, type: { $ne: 'advance' }, status: { $nin: ['canceled', 'paid'] } },
    { orderBy: { installmentNumber: 'asc', id: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  let left = crossed;
  for (const payable of payables) {
    if (left === 0n) break;
    const room = await leftToPay(em, payable);
    const taken = room <= 0n ? 0n : room < left ? room : left;
    if (taken === 0n) continue;
    payable.crossedCents += taken;
    left -= taken;
    await settle(em, payable, document, { accounting_entry: entry.id, advance_crossed_cents: taken.toString() });
  }
  await lowerAdvances(em, entry);
  em.create(ActivityLog, {
    company: document.company,
    document,
    event: 'document.updated',
    actor: { type: 'system', source: 'erp' },
    metadata: {
      change: 'advances_crossed',
      accounting_entry: entry.id,
      crossed_cents: (crossed - left).toString(),
      ...(left > 0n ? { not_applied_cents: left.toString(), reason: 'nothing left to pay on the payables' } : {}),
    },
  });
}

/** Each advance crossed has that much less left to cross, until the ERP reports its own balance. */
async function lowerAdvances(em: EntityManager, entry: AccountingEntry): Promise<void> {
  const byAdvance = new Map<string, bigint>();
  for (const crossing of entry.advanceCrossings)
    if (crossing.reference && crossing.amount_cents > 0)
      byAdvance.set(crossing.reference, (byAdvance.get(crossing.reference) ?? 0n) + BigInt(crossing.amount_cents));
  if (byAdvance.size === 0) return;
  const advances = await em.find(
    Payment,
    {
      id: { $in: [...byAdvance.keys()].filter((id) => /^[0-9a-f-]{36}$/i.test(id)) },
      status: 'processed',
      payable: { type: 'advance' },
    },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  for (const advance of advances) {
    const outstanding = (advance.advanceOutstandingCents ?? advance.amountCents) - byAdvance.get(advance.id)!;
    advance.advanceOutstandingCents = outstanding < 0n ? 0n : outstanding;
    advance.advanceBalanceUpdatedAt = new Date();
  }
}
