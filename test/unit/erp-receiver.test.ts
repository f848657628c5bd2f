import { execFile } from 'node:child_process';
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';

const SECRET = 'whsec_test_3f9a';
let receiver: ErpReceiver;

beforeAll(async () => {
  receiver = await startErpReceiver({ secret: SECRET });
});
afterAll(() => receiver.stop());
beforeEach(() => receiver.reset());

const sign = (raw: string | Buffer, secret = SECRET) => createHmac('sha256', secret).update(raw).digest('hex');

/** Sends a webhook the way the service does: raw bytes signed, with the service's headers. */
async function deliver(
  event: string,
  payload: unknown,
  options: { raw?: string; signature?: string; deliveryId?: string } = {},
) {
  const raw = options.raw ?? JSON.stringify({ event, ...(payload as object) });
  const response = await fetch(receiver.url + '/webhooks', {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-signature': options.signature ?? sign(raw),
      'x-service-event': event,
      'x-service-timestamp': new Date().toISOString(),
      'x-service-delivery-id': options.deliveryId ?? randomUUID(),
    },
    body: raw,
  });
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // Left null: some modes answer garbage on purpose.
  }
  return { status: response.status, text, body: body as Record<string, unknown> | null };
}

const accounted = (reference: string) =>
  deliver('document.accounted', {
    timestamp: new Date().toISOString(),
    data: { reference, document_number: 'FE-101', amount: 119000_00 },
  });

const control = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
  const response = await fetch(receiver.url + path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

describe('signature', () => {
  it('accepts a signed webhook and records it', async () => {
    const reply = await deliver(
      'document.created',
      { data: { reference: randomUUID(), purchase_order: null } },
      { deliveryId: 'd-1' },
    );
    expect(reply).toMatchObject({ status: 200, body: { ok: true } });
    const [record] = receiver.received;
    expect(record).toMatchObject({
      method: 'POST',
      event: 'document.created',
      deliveryId: 'd-1',
      signatureValid: true,
      answer: { status: 200 },
    });
    expect(record?.json).toMatchObject({ event: 'document.created' });
  });

  it('answers 401 to a wrong, missing or re-serialised signature and processes nothing', async () => {
    const reference = randomUUID();
    const payload = { data: { reference } };
    const wrong = await deliver('document.accounted', payload, {
      signature: sign(JSON.stringify(payload), 'another-secret'),
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: { code: 'invalid_signature', message: expect.any(String) } });
    expect((await deliver('document.accounted', payload, { signature: '' })).status).toBe(401);
    // The signature covers the exact bytes: the same JSON re-indented no longer matches.
    const compact = JSON.stringify({ event: 'document.accounted', ...payload });
    const pretty = JSON.stringify(JSON.parse(compact), null, 2);
    expect((await deliver('document.accounted', payload, { raw: pretty, signature: sign(compact) })).status).toBe(401);
    expect(receiver.registered.size).toBe(0);
    expect(receiver.received.map((r) => r.signatureValid)).toEqual([false, false, false]);
  });
});

describe('document.accounted', () => {
  it('registers a reference once and answers the earlier ids on a repeat', async () => {
    const reference = randomUUID();
    const first = await accounted(reference);
    expect(first).toMatchObject({ status: 200, body: { erp_invoice_id: 'ERP-000001', invoice_reference: 'FC-1' } });
    expect((await accounted(reference)).body).toEqual(first.body);
    expect((await accounted(randomUUID())).body).toEqual({ erp_invoice_id: 'ERP-000002', invoice_reference: 'FC-2' });
    expect(receiver.registered.get(reference)).toEqual({
      erp_invoice_id: 'ERP-000001',
      invoice_reference: 'FC-1',
      times: 2,
    });
    expect(receiver.registered.size).toBe(2);
  });

  it('refuses a voucher without data.reference with a 422', async () => {
    const reply = await deliver('document.accounted', { data: {} });
    expect(reply).toMatchObject({ status: 422, body: { error: { code: 'invalid_payload' } } });
  });
});

describe('other events', () => {
  it('acknowledges each delivery and counts repeated delivery ids', async () => {
    const payload = { payment_id: randomUUID(), previous_due_date: '2026-03-01', new_due_date: '2026-03-15' };
    expect((await deliver('payment.rescheduled', payload, { deliveryId: 'd-7' })).body).toEqual({ ok: true });
    expect((await deliver('payment.rescheduled', payload, { deliveryId: 'd-7' })).body).toEqual({ ok: true });
    await deliver('payment.rescheduled', payload, { deliveryId: 'd-8' });
    expect(receiver.duplicates).toBe(1);
  });
});

describe('behaviour modes', () => {
  it('reject: 422 with the configured error, nothing registered', async () => {
    receiver.behave('reject', { code: 'vendor_not_found', message: 'The vendor 900123456 does not exist in the ERP' });
    const reply = await accounted(randomUUID());
    expect(reply).toEqual({
      status: 422,
      text: expect.any(String),
      body: { error: { code: 'vendor_not_found', message: 'The vendor 900123456 does not exist in the ERP' } },
    });
    expect(receiver.registered.size).toBe(0);
    expect((await accounted(randomUUID())).status).toBe(422);
  });

  it('fail with times: 500 twice, then back to ok', async () => {
    receiver.behave('fail', { times: 2 });
    const reference = randomUUID();
    expect((await accounted(reference)).status).toBe(500);
    expect((await accounted(reference)).status).toBe(500);
    expect(receiver.registered.size).toBe(0);
    expect(await accounted(reference)).toMatchObject({ status: 200, body: { erp_invoice_id: 'ERP-000001' } });
    expect(receiver.registered.get(reference)?.times).toBe(1);
  });

  it('a bad signature does not use up one of the times', async () => {
    receiver.behave('fail', { times: 1 });
    expect((await deliver('document.created', {}, { signature: 'bad' })).status).toBe(401);
    expect((await accounted(randomUUID())).status).toBe(500);
    expect((await accounted(randomUUID())).status).toBe(200);
  });

  it('slow: registers at once, answers after the delay', async () => {
    receiver.behave('slow', { delayMs: 1_000, times: 1 });
    const reference = randomUUID();
    const started = Date.now();
    const pending = accounted(reference);
    await expect.poll(() => receiver.registered.has(reference), { interval: 10 }).toBe(true);
    expect(receiver.received[0]?.answer).toBeNull();
    expect((await pending).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
  });

  it('garbage: 200 with a body that is not JSON; a retry gets the ids registered meanwhile', async () => {
    receiver.behave('garbage', { times: 1 });
    const reference = randomUUID();
    const reply = await accounted(reference);
    expect(reply.status).toBe(200);
    expect(reply.body).toBeNull();
    expect((await accounted(reference)).body).toEqual({ erp_invoice_id: 'ERP-000001', invoice_reference: 'FC-1' });
  });

  it('missing-id: 200 without erp_invoice_id', async () => {
    receiver.behave('missing-id');
    const reply = await accounted(randomUUID());
    expect(reply.status).toBe(200);
    expect(reply.body).not.toHaveProperty('erp_invoice_id');
  });

  it('no-consecutive: invoice_reference null, kept on repeats, and the consecutive is not used up', async () => {
    receiver.behave('no-consecutive', { times: 1 });
    const reference = randomUUID();
    expect((await accounted(reference)).body).toEqual({ erp_invoice_id: 'ERP-000001', invoice_reference: null });
    expect((await accounted(reference)).body).toEqual({ erp_invoice_id: 'ERP-000001', invoice_reference: null });
    expect((await accounted(randomUUID())).body).toEqual({ erp_invoice_id: 'ERP-000002', invoice_reference: 'FC-1' });
  });

  it('refuses an unknown mode or a bad times', () => {
    expect(() => receiver.behave('sleepy' as never)).toThrow(RangeError);
    expect(() => receiver.behave('fail', { times: 0 })).toThrow(RangeError);
  });
});

describe('control API', () => {
  it('steers the receiver, shows what it received and resets', async () => {
    expect(
      await control('POST', '/_control/behave', {
        mode: 'reject',
        times: 1,
        code: 'period_closed',
        message: 'The period is closed',
      }),
    ).toEqual({ status: 200, body: { mode: 'reject', times: 1 } });
    const reference = randomUUID();
    expect((await accounted(reference)).body).toEqual({
      error: { code: 'period_closed', message: 'The period is closed' },
    });
    expect((await accounted(reference)).status).toBe(200);

    const seen = await control('GET', '/_control/received');
    expect(seen.status).toBe(200);
    expect(seen.body.received).toHaveLength(2);
    expect(seen.body.registered).toEqual({
      [reference]: { erp_invoice_id: 'ERP-000001', invoice_reference: 'FC-1', times: 1 },
    });
    expect(seen.body).toMatchObject({ duplicates: 0, mode: 'ok' });

    expect((await control('POST', '/_control/behave', { mode: 'sleepy' })).status).toBe(400);
    expect((await control('POST', '/_control/behave', { mode: 'slow', delayMs: -1 })).status).toBe(400);
    expect((await control('GET', '/_control/nothing')).status).toBe(404);

    expect(await control('POST', '/_control/reset')).toEqual({ status: 200, body: { ok: true } });
    expect(receiver.received).toHaveLength(0);
    expect(receiver.registered.size).toBe(0);
  });
});

describe('the signature check of docs/webhooks.md', () => {
  // The same lines as the Node.js snippet in docs/webhooks.md.
  function verifySignature(rawBody: Buffer, signatureHeader: string | undefined, secret: string): boolean {
    const expected = Buffer.from(createHmac('sha256', secret).update(rawBody).digest('hex'), 'utf8');
    const received = Buffer.from(String(signatureHeader ?? ''), 'utf8');
    return expected.length === received.length && timingSafeEqual(expected, received);
  }

  it('agrees with openssl dgst -sha256 -hmac over the raw body bytes', async () => {
    const raw = JSON.stringify({
      event: 'document.created',
      data: {
        reference: randomUUID(),
        fiscal_metadata: { final_notes: 'Facturación electrónica — año 2026, ñandú' },
        amount: 1190.5,
      },
    });
    const dir = await mkdtemp(join(tmpdir(), 'erp-receiver-'));
    try {
      const file = join(dir, 'body.json');
      await writeFile(file, raw, 'utf8');
      const { stdout } = await promisify(execFile)('openssl', ['dgst', '-sha256', '-hmac', SECRET, file]);
      const hex = /= ([0-9a-f]{64})\s*$/.exec(stdout)?.[1];
      expect(hex).toMatch(/^[0-9a-f]{64}$/);
      expect(verifySignature(Buffer.from(raw, 'utf8'), hex, SECRET)).toBe(true);
      expect(verifySignature(Buffer.from(raw, 'utf8'), hex?.toUpperCase(), SECRET)).toBe(false);
      expect(verifySignature(Buffer.from(raw + ' ', 'utf8'), hex, SECRET)).toBe(false);
      expect((await deliver('document.created', null, { raw, signature: hex })).status).toBe(200);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
