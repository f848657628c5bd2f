// Each delivery attempt resolves its receiver, judges every address by the outbound policy, and connects only to what
// it judged, verifying TLS against the receiver's name: a resolver that changes its answer (DNS rebinding) cannot steer
// an attempt to an address it did not check.
import { readFileSync, rmSync } from 'node:fs';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { attemptDelivery, type DeliveryDeps } from '../../services/webhooks/deliver.ts';
import { recordEvent } from '../../services/webhooks/events.ts';
import { secretBox } from '../../platform/secret-box.ts';
import { addSubscription } from '../../services/webhooks/subscriptions.ts';
import { tempDir } from '../../platform/temp-dir.ts';
import { companyEm, initORM, type Orm } from '../../db/orm.ts';
import { outboundPolicyFromEnv, type ResolvedAddress, type Resolve } from '../../platform/outbound-policy.ts';
import { startErpReceiver, type ErpReceiver } from '../../simulators/erp-receiver/server.ts';
import { makeServerCertificate } from '../harness/certificates.ts';
import { TEST_WEBHOOK_SECRET_KEY } from '../helpers/activity-deps.ts';
import { makeCompany } from '../helpers/companies.ts';

const SECRET = 'whsec-policy-0123456789';
const NAME = 'erp.receiver.test';
const loopback: ResolvedAddress = { address: '127.0.0.1', family: 4 };

let orm: Orm;
let receiver: ErpReceiver;
let port: string;
let dir: string;
const defaultCas = getCACertificates('default');

beforeAll(async () => {
  orm = await initORM({ url: inject('databaseUrl'), poolMax: 3, statementTimeoutMs: 30_000, debug: false });
  dir = tempDir('ap-receiver-tls-');
  // A receiver on loopback whose certificate names only its host name, signed by a CA this process trusts as an
  // operator trusts a private one (NODE_EXTRA_CA_CERTS).
  const certificates = makeServerCertificate(dir, NAME);
  setDefaultCACertificates([...defaultCas, certificates.ca]);
  receiver = await startErpReceiver({
    secret: SECRET,
    tls: { cert: readFileSync(certificates.certFile), key: readFileSync(certificates.keyFile) },
  });
  port = new URL(receiver.url).port;
});
afterAll(async () => {
  setDefaultCACertificates(defaultCas);
  await receiver.stop();
  await orm.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Production's policy, with loopback allowlisted as an operator would allowlist the ERP's private network. */
const policy = outboundPolicyFromEnv({ NODE_ENV: 'production', OUTBOUND_ALLOWED_NETWORKS: '127.0.0.0/8' });

/** A resolver that answers what the test says, call by call, and counts its calls. */
function scriptedResolver(...answers: (ResolvedAddress[] | Error)[]): Resolve & { calls: number } {
  const resolve = Object.assign(
    async () => {
      const answer = answers[Math.min(resolve.calls++, answers.length - 1)]!;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    { calls: 0 },
  );
  return resolve;
}

/** One recorded delivery of document.created to `host`, and how to attempt it with a resolver. */
async function deliveryTo(host: string) {
  const { company } = await makeCompany(orm);
  const em = companyEm(orm, company.id);
  const secrets = secretBox(Buffer.from(TEST_WEBHOOK_SECRET_KEY, 'hex'));
  await addSubscription(em, secrets, {
    company,
    event: 'document.created',
    url: `https://${host}:${port}/hooks`,
    secret: SECRET,
    outbound: policy,
  });
  const [delivery] = await recordEvent(em, company, 'document.created', null, {
    event: 'document.created',
    data: { reference: company.id },
  });
  await em.flush();
  let attempt = 0;
  return {
    id: delivery!.id,
    attempt: (resolve: Resolve) => {
      const deps: DeliveryDeps = { orm, secrets, outbound: policy, resolve };
      return attemptDelivery(deps, { companyId: company.id, deliveryId: delivery!.id, attempt: ++attempt });
    },
    received: () => receiver.received.filter((request) => request.deliveryId === delivery!.id),
  };
}

describe('a delivery attempt', () => {
  it('connects to the address it checked and verifies TLS against the receiver name, without resolving again', async () => {
    const delivery = await deliveryTo(NAME);
    // Were the connection to resolve the name itself, it would meet the second answer.
    const resolve = scriptedResolver([loopback], [{ address: '10.0.0.5', family: 4 }]);
    expect(await delivery.attempt(resolve)).toMatchObject({ outcome: 'delivered', statusCode: 200 });
    expect(resolve.calls).toBe(1);
    expect(delivery.received()).toHaveLength(1);
    expect(delivery.received()[0]!.headers.host).toBe(`${NAME}:${port}`);
  });

  it('is refused, and sends nothing, when any address the name resolves to is refused', async () => {
    const delivery = await deliveryTo(NAME);
    const outcome = await delivery.attempt(scriptedResolver([loopback, { address: '10.0.0.5', family: 4 }]));
    expect(outcome).toEqual({
      event: 'document.created',
      outcome: 'failed',
      statusCode: null,
      error: `${NAME} resolves to 10.0.0.5 is in 10.0.0.0/8 (private); allow it with OUTBOUND_ALLOWED_NETWORKS`,
    });
    expect(delivery.received()).toEqual([]);
  });

  it('judges each attempt afresh: a name that moves to a refused address is refused on the next attempt', async () => {
    const delivery = await deliveryTo(NAME);
    const first = await delivery.attempt(scriptedResolver(new Error('timeout')));
    expect(first).toMatchObject({ outcome: 'retry', error: `${NAME} does not resolve (timeout)` });
    const second = await delivery.attempt(scriptedResolver([{ address: '169.254.169.254', family: 4 }]));
    expect(second).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('169.254.169.254 is in 169.254.0.0/16 (link-local)'),
    });
    expect(delivery.received()).toEqual([]);
  });

  it('retries, never treating it as public, while the name does not resolve', async () => {
    const delivery = await deliveryTo(NAME);
    const outcome = await delivery.attempt(
      scriptedResolver(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
    );
    expect(outcome).toEqual({
      event: 'document.created',
      outcome: 'retry',
      statusCode: null,
      error: `${NAME} does not resolve (ENOTFOUND)`,
    });
    const rows = await orm.em
      .getConnection()
      .execute<{ status_code: number | null; error: string }[]>(
        'select status_code, error from webhook_delivery_attempts where delivery_id = ?',
        [delivery.id],
      );
    expect(rows).toEqual([{ status_code: null, error: `${NAME} does not resolve (ENOTFOUND)` }]);
  });

  it('fails TLS when the certificate does not name the host, even at an address the policy allows', async () => {
    const delivery = await deliveryTo('other.receiver.test');
    const outcome = await delivery.attempt(scriptedResolver([loopback]));
    expect(outcome).toMatchObject({
      outcome: 'retry',
      statusCode: null,
      error: expect.stringMatching(/altnames|Hostname\/IP does not match/),
    });
    expect(delivery.received()).toEqual([]);
  });
});
