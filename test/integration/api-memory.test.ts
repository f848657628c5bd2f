// The largest request the API accepts, against an API run as production runs it (its own process, production heap
// flags, the default body limits): a purchase-order sync that fills the ERP body limit (10 MB) with 100 orders of 500
// lines, 50,000 records' worth. It is synced whole, and the API's peak resident memory stays within its budget for
// such a request. Built here.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { initORM, type Orm } from '../../db/orm.ts';
import { freePort } from '../../platform/ports.ts';
import { makeCompany } from '../helpers/companies.ts';
import { peakResidentBytes, spawnApi, type ApiProcess } from '../helpers/processes.ts';

const MB = 1024 * 1024;
/**
 * The API's budget under the benchmark's loads is 250 MB; one body this large adds what it holds while it is parsed,
 * validated and written (the text, its parsed and validated forms, the statement's JSON parameter), some 100 MB.
 */
const LARGEST_REQUEST_BUDGET = 320 * MB;
const ERP_BODY_LIMIT = 10 * MB;
const ORDERS = 100;
const LINES = 500;

let api: ApiProcess;
let orm: Orm;

beforeAll(async () => {
  api = spawnApi(await freePort());
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 2, statementTimeoutMs: 30_000, debug: false });
  await api.ready;
});
afterAll(async () => {
  await api?.kill();
  await orm?.close();
});

/** Orders of `LINES` lines each, their descriptions padded so that the batch's JSON comes just under `bytes`. */
function purchaseOrders(bytes: number): string {
  const order = (number: number, description: string) => ({
    external_id: `PO-${number}`,
    number: `OC-${number}`,
    currency: 'COP',
    lines: Array.from({ length: LINES }, (_, index) => ({
      external_id: `L-${index}`,
      description: `${description} ${index}`,
      quantity: '3',
      unit_price: '1250.50',
    })),
  });
  const bare = JSON.stringify({ items: Array.from({ length: ORDERS }, (_, n) => order(n, 'x')) }).length;
  const padding = Math.floor((bytes - bare) / (ORDERS * LINES));
  return JSON.stringify({ items: Array.from({ length: ORDERS }, (_, n) => order(n, 'x'.repeat(padding + 1))) });
}

describe('the API under its heap flags', () => {
  it('syncs a purchase-order batch that fills the ERP body limit, within its memory budget', async () => {
    const { company, apiKey } = await makeCompany(orm);
    const body = purchaseOrders(ERP_BODY_LIMIT - 1024);
    expect(body.length).toBeGreaterThan(ERP_BODY_LIMIT - 64 * 1024);
    expect(body.length).toBeLessThan(ERP_BODY_LIMIT);
    const response = await fetch(`${api.url}/api/v1/erp/purchase-orders`, {
      method: 'POST',
      headers: { authorization: `ApiKey ${apiKey}`, 'content-type': 'application/json' },
      body,
    });
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 200,
      body: { synced: ORDERS, errors: [] },
    });
    const [stored] = await orm.em
      .fork()
      .getConnection()
      .execute<{ orders: string; lines: string }[]>(
        'select count(*) as orders, sum(jsonb_array_length(lines)) as lines from erp_purchase_orders where company_id = ?',
        [company.id],
      );
    expect([Number(stored!.orders), Number(stored!.lines)]).toEqual([ORDERS, ORDERS * LINES]);
    expect(peakResidentBytes(api.process.pid!)).toBeLessThan(LARGEST_REQUEST_BUDGET);
  });
});
