// A crossed voucher the ERP registers is no longer pending on its purchase order: each order line it crossed goes
// down by the voucher line's quantity, once, however often the ERP is asked again.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectPublishedShapes } from '../helpers/published-webhooks.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErpPurchaseOrder } from '../../db/erp/purchase-order.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { WebhookDelivery } from '../../db/webhooks/webhook-delivery.entity.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeCompany } from '../helpers/companies.ts';
import { ops, subscribeWebhook } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const DIAN_INVOICE = join(
  new URL('../fixtures/', import.meta.url).pathname,
  'dian/stenfrank-invoice_unsigned_dian_v2.xml',
);
const SECRET = 'whsec-test-0123456789';

let api: TestApi;
let receiver: ErpReceiver;
beforeAll(async () => {
  api = await startTestApi();
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(async () => {
  // Every webhook the receiver got has the shape the OpenAPI document publishes.
  expect(expectPublishedShapes(receiver.received)).toBeGreaterThan(0);
  await receiver.stop();
  await api.close();
});

const sync = async (apiKey: string, catalog: string, items: unknown[]) =>
  expect(
    (
      await api.call('POST', `/api/v1/erp/${catalog}`, {
        headers: { authorization: `ApiKey ${apiKey}` },
        body: { items },
      })
    ).body,
  ).toEqual({ synced: items.length, errors: [] });

/** A purchase-order line of a voucher, crossing `line` with `quantity`. */
const crossing = (line: string, quantity: number, debitCents: number) => ({
  source: 'purchase_order',
  description: `Línea ${line}`,
  book_account_external_id: 'BA-5195',
  debit_cents: debitCents,
  quantity,
  purchase_order_line_external_id: line,
});

describe('purchase-order pending quantities', () => {
  it('go down by what a registered voucher crossed, never below zero, and only on its first registration', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL', bookAccounts: true });
    await subscribeWebhook(company.id, 'document.accounted', `${receiver.url}/hooks`, SECRET);
    const imported = await ops('documents', 'import', '--company', company.id, DIAN_INVOICE);
    const reference = imported.stdout.documents[0].reference as string;
    await sync(apiKey, 'vendors', [{ external_id: 'V-1', name: 'Proveedor' }]);
    await sync(apiKey, 'purchase-orders', [
      {
        external_id: 'PO-1',
        number: 'OC-1',
        vendor_external_id: 'V-1',
        lines: [
          { external_id: 'PO-1-1', description: 'Tornillos', quantity: 10, unit_price: 100, pending_quantity: '8.5' },
          { external_id: 'PO-1-2', description: 'Tuercas', quantity: 3, unit_price: 50 },
          { external_id: 'PO-1-3', description: 'Arandelas', quantity: 5, unit_price: 10 },
        ],
      },
    ]);
    const dir = tempDir('ap-po-receipt-');
    writeFileSync(
      join(dir, 'entry.json'),
      JSON.stringify({
        summary: { total_cents: 202306000 },
        journal_entry: {
          document_type_external_id: 'FC',
          vendor_external_id: 'V-1',
          erp_journal_entry_lines: [
            // Two voucher lines on one order line add up; more than pending leaves none.
            crossing('PO-1-1', 0.1, 100000000),
            crossing('PO-1-1', 2.2, 50000000),
            crossing('PO-1-2', 4, 22000000),
            { source: 'document', description: 'IVA', book_account_external_id: 'BA-5195', debit_cents: 30306000 },
          ],
          payment_lines: [
            { book_account_external_id: 'BA-2205', amount_cents: 202306000, due_date: '2019-06-12', quota_number: 1 },
          ],
        },
        advance_crossings: [],
      }),
    );
    const accounted = await ops('documents', 'account', '--document', reference, '--file', join(dir, 'entry.json'));
    expect(accounted.stdout.accounting_entry).toMatchObject({ is_crossed: true });
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0).toBe(1);

    const pending = async () => {
      const order = await companyEm(api.orm, company.id).findOneOrFail(ErpPurchaseOrder, { externalId: 'PO-1' });
      return Object.fromEntries(order.lines.map((line) => [line.externalId, line.pendingQuantity]));
    };
    await expect.poll(pending).toEqual({ 'PO-1-1': '6.2', 'PO-1-2': '0', 'PO-1-3': '5' });

    // The same delivery sent again: the ERP answers the ids it gave, and nothing is lowered twice.
    const delivery = await companyEm(api.orm, company.id).findOneOrFail(WebhookDelivery, {
      event: 'document.accounted',
    });
    expect((await ops('webhooks', 'redeliver', '--delivery', delivery.id)).code).toBe(0);
    await expect.poll(() => receiver.registered.get(reference)?.times ?? 0).toBe(2);
    await expect
      .poll(
        async () => (await companyEm(api.orm, company.id).findOneOrFail(WebhookDelivery, { id: delivery.id })).attempts,
      )
      .toBeGreaterThan(1);
    expect(await pending()).toEqual({ 'PO-1-1': '6.2', 'PO-1-2': '0', 'PO-1-3': '5' });
  });
});
