import type { ErpPurchaseOrder, PurchaseOrderLine } from '../../db/erp/purchase-order.entity.ts';
import { normalizedDescription } from '../../db/accounting/book-account-rules.ts';

// Two-way match: an invoice line is crossed with the line of its purchase order that has its product (else its
// description) when the quantity is within what the order still has pending and the unit price within the company's
// tolerance. A line beyond its order is never crossed on the agent's word: a person reviews it.

/** Order statuses that take no more invoices (the ERP's own words, `PURCHASE_ORDER_STATUSES`). */
const CLOSED_STATUSES = new Set(['received', 'closed', 'cancelled']);

export type OrderForCrossing = Pick<
  ErpPurchaseOrder,
  'externalId' | 'number' | 'vendorExternalId' | 'status' | 'isActive'
> & {
  lines: PurchaseOrderLine[];
};

export interface LineToCross {
  /** Index of the invoice line. */
  index: number;
  description: string;
  /** The ERP product the invoice line's code names, if any. */
  productExternalId: string | null;
  quantity: string;
  unitPriceCents: number;
}

export interface Crossed {
  index: number;
  orderLine: PurchaseOrderLine;
}

/** Why a line (or the whole document, `index` null) cannot be crossed with its order, in a person's words. */
export interface Mismatch {
  index: number | null;
  text: string;
}

const SCALE = 1_000_000n;

/** A decimal quantity (at most 6 decimals, as synced and parsed) in millionths, exactly. */
function micros(quantity: string): bigint {
  const [whole = '0', fraction = ''] = quantity.trim().split('.');
  const negative = whole.startsWith('-');
  const value = BigInt(whole.replace('-', '') || '0') * SCALE + BigInt(fraction.padEnd(6, '0').slice(0, 6) || '0');
  return negative ? -value : value;
}

const quantityText = (value: bigint): string => {
  const whole = value / SCALE;
  const fraction = (value % SCALE).toString().padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : `${whole}`;
};

const money = (cents: number): string =>
  (cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Whether `invoiced` is within `tolerancePercent` of the order's unit price (0: exactly it). */
function priceWithin(invoiced: number, ordered: number, tolerancePercent: number): boolean {
  // In hundredths of a percent, so that 0.5% is exact.
  const allowed = BigInt(ordered) * BigInt(Math.round(tolerancePercent * 100));
  return BigInt(Math.abs(invoiced - ordered)) * 10_000n <= allowed;
}

/**
 * Crosses the invoice's lines with its order. `vendorExternalId` is the ERP vendor of the document's supplier. Lines
 * with no counterpart on the order are neither crossed nor mismatched: they are accounted as direct purchases.
 */
export function crossWithOrder(
  order: OrderForCrossing,
  vendorExternalId: string | null,
  lines: LineToCross[],
  tolerancePercent: number,
): { crossed: Crossed[]; mismatches: Mismatch[] } {
  if (order.vendorExternalId && order.vendorExternalId !== vendorExternalId)
    return {
      crossed: [],
      mismatches: [{ index: null, text: `${order.number} is an order of another vendor (${order.vendorExternalId})` }],
    };
  if (!order.isActive || (order.status && CLOSED_STATUSES.has(order.status)))
    return { crossed: [], mismatches: [{ index: null, text: `${order.number} is ${order.status ?? 'inactive'}` }] };

  const pending = new Map(order.lines.map((line) => [line.externalId, micros(line.pendingQuantity)]));
  const crossed: Crossed[] = [];
  const mismatches: Mismatch[] = [];
  for (const line of lines) {
    const wanted = normalizedDescription(line.description);
    const orderLine =
      (line.productExternalId
        ? order.lines.find((candidate) => candidate.productExternalId === line.productExternalId)
        : undefined) ??
      order.lines.find((candidate) => candidate.description && normalizedDescription(candidate.description) === wanted);
    if (!orderLine) continue;
    const position = order.lines.indexOf(orderLine) + 1;
    const left = pending.get(orderLine.externalId) ?? 0n;
    const invoiced = micros(line.quantity);
    if (invoiced > left) {
      mismatches.push({
        index: line.index,
        text: `${quantityText(invoiced)} units invoiced, ${quantityText(left)} pending on ${order.number} line ${position}`,
      });
      continue;
    }
    if (!priceWithin(line.unitPriceCents, orderLine.unitPriceCents, tolerancePercent)) {
      mismatches.push({
        index: line.index,
        text: `unit price ${money(line.unitPriceCents)} invoiced, ${money(orderLine.unitPriceCents)} on ${order.number} line ${position}`,
      });
      continue;
    }
    pending.set(orderLine.externalId, left - invoiced);
    crossed.push({ index: line.index, orderLine });
  }
  return { crossed, mismatches };
}
