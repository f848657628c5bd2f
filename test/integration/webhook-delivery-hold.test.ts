import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attemptDelivery, DeliveryInFlight, type DeliveryDeps } from '../../services/webhooks/deliver.ts';
import { recordEvent } from '../../services/webhooks/events.ts';
import { secretBox } from '../../platform/secret-box.ts';
import { addSubscription } from '../../services/webhooks/subscriptions.ts';
import { outboundPolicyFromEnv } from '../../platform/outbound-policy.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { recordAttempt } from '../../db/webhooks/webhook-delivery.repository.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { TEST_WEBHOOK_SECRET_KEY } from '../helpers/activity-deps.ts';
import { makeCompany } from '../helpers/companies.ts';

const SECRET = 'whsec-test-0123456789';

let orm: Orm;
let receiver: ErpReceiver;
let deps: DeliveryDeps;
beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 5, statementTimeoutMs: 30_000, debug: false });
  receiver = await startErpReceiver({ secret: SECRET });
  deps = { orm, secrets: secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex')), outbound: outboundPolicyFromEnv({}) };
});
afterAll(async () => {
  await receiver.stop();
  await orm.close();
});

/** A company subscribed to document.created on the receiver, and one recorded delivery to it. */
async function recordedDelivery() {
  const { company } = await makeCompany(orm);
  const em = companyEm(orm, company.id);
  await addSubscription(em, deps.secrets, {
    company,
    event: 'document.created',
    url: `${receiver.url}/hooks`,
    secret: SECRET,
    timeoutSeconds: 10,
    outbound: deps.outbound,
  });
  await em.flush();
  const [delivery] = await recordEvent(em, company, 'document.created', null, {
    event: 'document.created',
    data: { reference: company.id },
  });
  await em.flush();
  const attempt = { companyId: company.id, deliveryId: delivery!.id, attempt: 1 };
  const sent = () => receiver.received.filter((request) => request.deliveryId === delivery!.id).length;
  const sendingUntil = async () =>
    (
      await orm.em
        .getConnection()
        .execute<{ sending_until: Date | null }[]>('select sending_until from webhook_deliveries where id = ?', [
          delivery!.id,
        ])
    )[0]!.sending_until;
  return { attempt, sent, sendingUntil, deliveryId: delivery!.id };
}

describe('a delivery attempt run twice at once', () => {
  it('is sent by one run: the other waits for it and then finds the delivery done, sending nothing', async () => {
    const { attempt, sent, sendingUntil } = await recordedDelivery();
    receiver.behave('slow', { delayMs: 1_500, times: 1 });
    const first = attemptDelivery(deps, attempt);
    await expect.poll(sent).toBe(1);
    expect(await sendingUntil()).not.toBeNull();

    await expect(attemptDelivery(deps, attempt)).rejects.toBeInstanceOf(DeliveryInFlight);
    expect((await first).outcome).toBe('delivered');
    expect(await sendingUntil()).toBeNull();

    expect((await attemptDelivery(deps, attempt)).outcome).toBe('delivered');
    expect(sent()).toBe(1);
  });

  it('is sent again once the hold of a run that never recorded its outcome has expired', async () => {
    const { attempt, sent, deliveryId, sendingUntil } = await recordedDelivery();
    const holdUntil = (sql: string) =>
      orm.em.getConnection().execute(`update webhook_deliveries set sending_until = ${sql} where id = ?`, [deliveryId]);
    await holdUntil(`now() + interval '1 hour'`);
    await expect(attemptDelivery(deps, attempt)).rejects.toBeInstanceOf(DeliveryInFlight);
    expect(sent()).toBe(0);

    await holdUntil(`now() - interval '1 second'`);
    expect((await attemptDelivery(deps, attempt)).outcome).toBe('delivered');
    expect(sent()).toBe(1);
    expect(await sendingUntil()).toBeNull();
  });
});

describe('a delivery attempt named under another company', () => {
  it('finds no delivery, sends nothing and leaves the delivery untouched', async () => {
    const { attempt, sent, sendingUntil } = await recordedDelivery();
    const { company: other } = await makeCompany(orm);
    await expect(attemptDelivery(deps, { ...attempt, companyId: other.id })).rejects.toThrow(/does not exist/);
    expect(sent()).toBe(0);
    expect(await sendingUntil()).toBeNull();
  });
});

describe('an attempt recorded twice (its activity retried after it wrote)', () => {
  it('stays one attempt, and the delivery keeps its count, status and answer', async () => {
    const { attempt, deliveryId, sendingUntil } = await recordedDelivery();
    const written = {
      ...attempt,
      startedAt: new Date(),
      latencyMs: 12,
      statusCode: 200,
      error: null,
      status: 'delivered' as const,
      response: { ok: true },
    };
    await recordAttempt(companyEm(orm, attempt.companyId), written);
    await recordAttempt(companyEm(orm, attempt.companyId), { ...written, latencyMs: 15 });
    const connection = orm.em.getConnection();
    const attempts = await connection.execute<{ attempt: number; latency_ms: number }[]>(
      'select attempt, latency_ms from webhook_delivery_attempts where delivery_id = ?',
      [deliveryId],
    );
    expect(attempts).toEqual([{ attempt: 1, latency_ms: 15 }]);
    const [delivery] = await connection.execute<
      { attempts: number; status: string; receiver_response: unknown; delivered_at: unknown }[]
    >('select attempts, status, receiver_response, delivered_at from webhook_deliveries where id = ?', [deliveryId]);
    expect(delivery).toMatchObject({ attempts: 1, status: 'delivered', receiver_response: { ok: true } });
    expect(delivery!.delivered_at).not.toBeNull();
    expect(await sendingUntil()).toBeNull();
  });
});
