import { describe, expect, it } from 'vitest';
import type { JournalEntryLine } from '../../../db/accounting/accounting-entry.entity.ts';
import type { PurchaseOrderLine } from '../../../db/erp/purchase-order.entity.ts';
import { crossedQuantities, pendingAfterReceipt, receiveLines } from '../../../db/erp/purchase-order-receipts.ts';

describe('pendingAfterReceipt', () => {
  it('subtracts exactly, in decimals a float would get wrong', () => {
    expect(pendingAfterReceipt('10', '2.5')).toBe('7.5');
    expect(pendingAfterReceipt('0.3', '0.1')).toBe('0.2');
    expect(pendingAfterReceipt('1.000001', '0.000001')).toBe('1');
    expect(pendingAfterReceipt('123456789012345.123456', '0.000006')).toBe('123456789012345.12345');
  });

  it('never goes below zero', () => {
    expect(pendingAfterReceipt('2', '3.5')).toBe('0');
    expect(pendingAfterReceipt('0', '1')).toBe('0');
    expect(pendingAfterReceipt('4.25', '4.25')).toBe('0');
  });

  it('refuses what is not a non-negative decimal', () => {
    expect(() => pendingAfterReceipt('1e3', '1')).toThrow(/decimal quantity/);
    expect(() => pendingAfterReceipt('5', '-1')).toThrow(/decimal quantity/);
  });
});

const line = (overrides: Partial<JournalEntryLine>): JournalEntryLine => ({
  source: 'purchase_order',
  book_account_external_id: 'BA-1435',
  debit_cents: 100,
  ...overrides,
});

describe('crossedQuantities', () => {
  it('takes the purchase-order lines with an order line and a positive quantity, as decimals', () => {
    const crossed = crossedQuantities({
      erp_journal_entry_lines: [
        line({ purchase_order_line_external_id: 'L-1', quantity: 2.5, metadata: { purchase_order: 'OC-7' } }),
        line({ purchase_order_line_external_id: 'L-2', quantity: 0.1 + 0.2 }),
        line({ purchase_order_line_external_id: 'L-3', quantity: null }),
        line({ purchase_order_line_external_id: 'L-4', quantity: 0 }),
        line({ purchase_order_line_external_id: null, quantity: 1 }),
        line({ source: 'goods_receipt', purchase_order_line_external_id: 'L-5', quantity: 1 }),
        line({ source: 'front', purchase_order_line_external_id: 'L-6', quantity: 1 }),
      ],
    });
    expect(crossed).toEqual([
      { lineExternalId: 'L-1', quantity: '2.5', orderNumber: 'OC-7' },
      // A JSON number is read to the 6 decimals quantities have.
      { lineExternalId: 'L-2', quantity: '0.3', orderNumber: null },
    ]);
  });
});

describe('receiveLines', () => {
  const orderLine = (externalId: string, pendingQuantity: string): PurchaseOrderLine => ({
    externalId,
    productExternalId: null,
    description: 'Tornillos',
    quantity: '10',
    unitPriceCents: 500,
    pendingQuantity,
  });

  it('lowers the pending quantity of the lines received and keeps the others as they are', () => {
    const lines = [orderLine('L-1', '10'), orderLine('L-2', '3')];
    const received = receiveLines(lines, new Map([['L-2', '4']]));
    expect(received).toEqual([orderLine('L-1', '10'), orderLine('L-2', '0')]);
    expect(received[0]).toBe(lines[0]);
    expect(lines[1]!.pendingQuantity).toBe('3');
  });
});
