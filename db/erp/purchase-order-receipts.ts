import { LockMode } from '@mikro-orm/core';
import type { JournalEntry } from '../accounting/accounting-entry.entity.ts';
import type { EntityManager } from '../orm.ts';
import { runStatement } from '../prepared.ts';
import { ErpPurchaseOrder, type PurchaseOrderLine } from './purchase-order.entity.ts';

// Quantities are decimal strings (up to 6 decimals): the arithmetic is on scaled integers, never on floats.

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

const places = (decimal: string): number => DECIMAL.exec(decimal)?.[2]?.length ?? 0;

function scaled(decimal: string, scale: number): bigint {
  const match = DECIMAL.exec(decimal.trim());
  if (!match) throw new Error(`Not a non-negative decimal quantity: ${JSON.stringify(decimal)}`);
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(scale, '0')}`);
}

function unscaled(value: bigint, scale: number): string {
  const digits = value.toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** What stays pending of an order line once `received` more of it is registered: never below zero. */
export function pendingAfterReceipt(pending: string, received: string): string {
  const scale = Math.max(places(pending.trim()), places(received.trim()));
  const left = scaled(pending, scale) - scaled(received, scale);
  return unscaled(left > 0n ? left : 0n, scale);
}

/** A voucher line's quantity as a decimal string (quantities have at most 6 decimals); null when there is none. */
function quantityOf(quantity: number | null | undefined): string | null {
  if (typeof quantity !== 'number' || !Number.isFinite(quantity) || quantity <= 0 || quantity >= 1e15) return null;
  return unscaled(scaled(quantity.toFixed(6), 6), 6);
}

/** One purchase-order line a voucher crossed, how much of it, and the order it names when it names one. */
export interface CrossedQuantity {
  lineExternalId: string;
  quantity: string;
  /** The order's number, as the accounting agent records it in the line's `metadata.purchase_order`. */
  orderNumber: string | null;
}

/** The voucher's lines crossed with a purchase-order line, with a quantity. */
export function crossedQuantities(journal: Pick<JournalEntry, 'erp_journal_entry_lines'>): CrossedQuantity[] {
  return journal.erp_journal_entry_lines.flatMap((line) => {
    const quantity = quantityOf(line.quantity);
    if (line.source !== 'purchase_order' || !line.purchase_order_line_external_id || quantity === null) return [];
    const number = line.metadata?.purchase_order;
    return [
      {
        lineExternalId: line.purchase_order_line_external_id,
        quantity,
        orderNumber: typeof number === 'string' ? number : null,
      },
    ];
  });
}

/** The order's lines once these quantities (by line external_id) are registered; the same lines when none applies. */
export function receiveLines(lines: PurchaseOrderLine[], received: ReadonlyMap<string, string>): PurchaseOrderLine[] {
  return lines.map((line) => {
    const quantity = received.get(line.externalId);
    return quantity === undefined
      ? line
      : { ...line, pendingQuantity: pendingAfterReceipt(line.pendingQuantity, quantity) };
  });
}

/**
 * The orders that hold one of these lines (line external_ids are unique within an order, not across them). A probe
 * per line: `lines @> [{ externalId }]`, within the company's orders.
 */
const ORDERS_WITH_LINES = `select "id" from "erp_purchase_orders"
where "company_id" = :companyId and "lines" @> any(cast(array[:probes] as jsonb[]))`;

/**
 * Once the ERP registered a crossed voucher, what it crossed is no longer pending on its purchase orders: each order
 * line goes down by the voucher's quantity, never below zero. Runs in the registration's transaction, the orders
 * locked, so that concurrent registrations and syncs of the same order apply one after the other. A line held by
 * several orders is reduced only where the voucher's order number (or vendor) tells which; none is guessed.
 */
export async function registerCrossedQuantities(
  em: EntityManager,
  companyId: string,
  journal: JournalEntry,
): Promise<void> {
  const crossed = crossedQuantities(journal);
  if (crossed.length === 0) return;
  const lineIds = [...new Set(crossed.map((line) => line.lineExternalId))];
  const found = await runStatement<{ id: string }>(em, ORDERS_WITH_LINES, {
    companyId,
    probes: lineIds.map((externalId) => JSON.stringify([{ externalId }])),
  });
  if (found.length === 0) return;
  const orders = await em.find(
    ErpPurchaseOrder,
    { company: companyId, id: { $in: found.map((row) => row.id) } },
    { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' }, refresh: true },
  );
  const received = new Map<ErpPurchaseOrder, Map<string, string>>();
  for (const line of crossed) {
    const order = orderOf(orders, line, journal.vendor_external_id ?? null);
    if (!order) continue;
    const quantities = received.get(order) ?? new Map<string, string>();
    const before = quantities.get(line.lineExternalId);
    // Two voucher lines crossing one order line add up.
    quantities.set(line.lineExternalId, before ? addQuantities(before, line.quantity) : line.quantity);
    received.set(order, quantities);
  }
  for (const [order, quantities] of received) order.lines = receiveLines(order.lines, quantities);
}

/** The one order a crossed line belongs to, narrowed by its order number, then by the voucher's vendor. */
function orderOf(orders: ErpPurchaseOrder[], line: CrossedQuantity, vendor: string | null): ErpPurchaseOrder | null {
  let candidates = orders.filter((order) =>
    order.lines.some((orderLine) => orderLine.externalId === line.lineExternalId),
  );
  if (candidates.length > 1 && line.orderNumber)
    candidates = candidates.filter((order) => order.number === line.orderNumber);
  if (candidates.length > 1 && vendor) candidates = candidates.filter((order) => order.vendorExternalId === vendor);
  return candidates.length === 1 ? candidates[0]! : null;
}

function addQuantities(a: string, b: string): string {
  const scale = Math.max(places(a), places(b));
  return unscaled(scaled(a, scale) + scaled(b, scale), scale);
}
