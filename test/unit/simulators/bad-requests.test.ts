import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBankValidationSimulator } from '../../../simulators/bank-validation/server.ts';
import { startDianMailboxSimulator } from '../../../simulators/dian-mailbox/server.ts';
import { startDianSimulator } from '../../../simulators/dian/server.ts';
import { startErpReceiver } from '../../../simulators/erp-receiver/server.ts';
import { startOAuth2Simulator } from '../../../simulators/oauth2/server.ts';
import { startObjectStorageSimulator } from '../../../simulators/object-storage/server.ts';
import { startOtlpCollector } from '../../../simulators/otlp-collector/server.ts';
import { startPaymentGatewaySimulator } from '../../../simulators/payment-gateway/server.ts';
import { startSatProviderSimulator } from '../../../simulators/sat-provider/server.ts';

// A simulator runs inside `npm start` (and the suite's global setup): a request it did not expect must be answered
// 4xx, never stop the process. Every simulator gets the same bad requests on its control and service routes, then a
// good one, which it still answers.

interface Target {
  name: string;
  start(): Promise<{ url: string; stop(): Promise<void> }>;
  /** Routes that take a JSON (or form) body with POST. */
  bodyRoutes: string[];
  /** Routes that take POST with a JSON object whose fields are all optional, or nothing. */
  optionalBodyRoutes?: string[];
  /** Routes that take POST without a body (a reset). */
  postRoutes: string[];
  /** Routes read with GET. */
  getRoutes: string[];
  /** A request it answers 200 to, once the bad ones are behind it. */
  good: { method: string; path: string; body?: string; headers?: Record<string, string> };
}

const CUFE = 'a'.repeat(96);
const TARGETS: Target[] = [
  {
    name: 'payment gateway',
    start: () => startPaymentGatewaySimulator(),
    bodyRoutes: ['/_control/outcomes', '/transfers', '/bulk-transfers'],
    postRoutes: [],
    getRoutes: ['/_control/transfers', '/_control/bulk-transfers', '/transfers/nope'],
    good: { method: 'GET', path: '/_control/transfers' },
  },
  {
    name: 'bank validation',
    start: () => startBankValidationSimulator(),
    bodyRoutes: ['/_control/outcomes', '/validations'],
    postRoutes: [],
    getRoutes: ['/_control/validations', '/validations/nope'],
    good: { method: 'GET', path: '/_control/validations' },
  },
  {
    name: 'DIAN',
    start: () => startDianSimulator(),
    bodyRoutes: ['/_control/behave', '/_control/register', '/WcfDianCustomerServices.svc'],
    postRoutes: ['/_control/reset'],
    getRoutes: [`/_control/events/${CUFE}`],
    good: { method: 'POST', path: '/_control/reset' },
  },
  {
    name: 'DIAN mailbox',
    start: () => startDianMailboxSimulator({ mailboxDir: mkdtempSync(join(tmpdir(), 'ap-bad-requests-')) }),
    bodyRoutes: ['/_control/nits/900123456/behave', '/auth/token'],
    optionalBodyRoutes: ['/_control/mailboxes/x/messages'],
    postRoutes: ['/_control/reset'],
    getRoutes: ['/_control/token-requests'],
    good: { method: 'GET', path: '/_control/token-requests' },
  },
  {
    name: 'SAT provider',
    start: () => startSatProviderSimulator(),
    bodyRoutes: ['/_control/extractions/nope/behave', '/v1/extractions'],
    optionalBodyRoutes: ['/_control/rfcs/AAA010101AAA/behave'],
    postRoutes: ['/_control/reset'],
    getRoutes: ['/_control/extractions', '/v1/extractions/nope', '/v1/extractions/nope/packages/nope'],
    good: { method: 'GET', path: '/_control/extractions' },
  },
  {
    name: 'ERP receiver',
    start: () => startErpReceiver({ secret: 's' }),
    bodyRoutes: ['/_control/behave', '/webhooks'],
    postRoutes: ['/_control/reset'],
    getRoutes: ['/_control/received'],
    good: { method: 'GET', path: '/_control/received' },
  },
  {
    name: 'OTLP collector',
    start: () => startOtlpCollector(),
    bodyRoutes: ['/v1/traces'],
    postRoutes: [],
    getRoutes: [],
    good: { method: 'POST', path: '/v1/traces', body: '{}', headers: { 'content-type': 'application/json' } },
  },
  {
    name: 'OAuth2',
    start: () => startOAuth2Simulator(),
    bodyRoutes: ['/_control/clients', '/_control/service-accounts', '/token', '/introspect'],
    optionalBodyRoutes: ['/_control/tokens/expire'],
    postRoutes: ['/_control/clients/nope/revoke', '/_control/clients/nope/reinstate'],
    getRoutes: ['/_control/token-requests'],
    good: { method: 'GET', path: '/_control/token-requests' },
  },
  {
    name: 'object storage',
    start: () => startObjectStorageSimulator({ bucket: 'b', accessKeyId: 'k', secretAccessKey: 's' }),
    bodyRoutes: ['/b/key'],
    postRoutes: [],
    getRoutes: ['/b/key'],
    // Unsigned: refused as S3 refuses it, which shows it still answers.
    good: { method: 'GET', path: '/b/key' },
  },
];

const MALFORMED_BODIES = [undefined, '', 'no es JSON', '{"sin cerrar": ', '[1, 2]', '"texto"', 'null', '42'];

function badRequests(target: Target): { method: string; path: string; body?: string }[] {
  return [
    ...target.bodyRoutes.flatMap((path) => [
      ...MALFORMED_BODIES.map((body) => ({ method: 'POST', path, ...(body === undefined ? {} : { body }) })),
      { method: 'GET', path },
      { method: 'DELETE', path },
    ]),
    ...(target.optionalBodyRoutes ?? []).flatMap((path) => [
      ...MALFORMED_BODIES.filter((body) => body).map((body) => ({ method: 'POST', path, body })),
      { method: 'GET', path },
      { method: 'DELETE', path },
    ]),
    // A route that takes POST, asked with GET and no body (the DIAN simulator's reset used to stop the process).
    ...target.postRoutes.flatMap((path) => [
      { method: 'GET', path },
      { method: 'DELETE', path },
    ]),
    ...target.getRoutes.map((path) => ({ method: 'DELETE', path })),
    { method: 'GET', path: '/_control/nope' },
    { method: 'POST', path: '/_control/nope', body: '{}' },
    { method: 'GET', path: '/_control/%E0%A4%A' },
    { method: 'POST', path: '/%zz/%E0', body: '{}' },
    { method: 'PUT', path: '/' },
  ];
}

describe.each(TARGETS)('the $name simulator', (target) => {
  let simulator: { url: string; stop(): Promise<void> };
  beforeAll(async () => {
    simulator = await target.start();
  });
  afterAll(() => simulator.stop());

  it('answers every bad request 4xx and goes on serving', async () => {
    const answered: string[] = [];
    for (const request of badRequests(target)) {
      const response = await fetch(`${simulator.url}${request.path}`, {
        method: request.method,
        ...(request.body === undefined ? {} : { body: request.body, headers: { 'content-type': 'application/json' } }),
      });
      await response.arrayBuffer();
      answered.push(`${request.method} ${request.path} ${JSON.stringify(request.body)} → ${response.status}`);
    }
    expect(answered.filter((line) => !/→ 4\d\d$/.test(line))).toEqual([]);
    const { method, path, body, headers } = target.good;
    const good = await fetch(`${simulator.url}${path}`, {
      method,
      ...(body ? { body } : {}),
      ...(headers ? { headers } : {}),
    });
    expect(good.status).toBe(target.name === 'object storage' ? 403 : 200);
  });

  it('refuses a body past its cap with 413 and goes on serving', async () => {
    if (target.name !== 'DIAN') return;
    // One simulator is enough: the cap is the shared guard's, and 64 MB per simulator would only cost time.
    const response = await fetch(`${simulator.url}/_control/behave`, {
      method: 'POST',
      body: new Uint8Array(64 * 1024 * 1024 + 1),
      headers: { 'content-type': 'application/json' },
    }).catch((error: Error) => error);
    // The answer comes before the body is sent whole: the client may see it, or only the connection closing.
    if (!(response instanceof Error)) expect(response.status).toBe(413);
    expect((await fetch(`${simulator.url}/_control/reset`, { method: 'POST' })).status).toBe(200);
  });
});
