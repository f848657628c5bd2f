// `npm start`: the whole product on one machine. Embedded PostgreSQL and the Temporal dev server keep their
// state under .data/; DATABASE_URL and TEMPORAL_ADDRESS switch either to an external service instead.
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Company } from '../db/companies/company.entity.ts';
import { createCompany, enableFeature, upsertMember } from '../db/companies/company.repository.ts';
import { setDianEventPerson } from '../db/fiscal/dian-event-person.repository.ts';
import { companyEm, initORM, systemEm, type Orm } from '../db/orm.ts';
import { WebhookSubscription } from '../db/webhooks/webhook-subscription.entity.ts';
import { addSubscription } from '../services/webhooks/subscriptions.ts';
import { secretBoxFromEnv } from '../platform/secret-box.ts';
import { startErpReceiver } from '../simulators/erp-receiver/server.ts';
import { randomBytes } from 'node:crypto';
import { migrateAndSeed } from '../db/schema.ts';
import { PUBLIC_PREFIX } from '../api/routes/index.ts';
import { API_NODE_FLAGS } from '../api/node-flags.ts';
import { outsideSystemsEnv } from '../platform/outside-systems.ts';
import { WORKER_NODE_FLAGS } from '../worker/node-flags.ts';
import { startSimulators } from '../simulators/index.ts';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './postgres.ts';
import { outboundPolicyFromEnv } from '../platform/outbound-policy.ts';
import { freePort } from '../platform/ports.ts';
import { DATA_DIR, writeRuntime } from '../platform/embedded-runtime.ts';
import { createSupervisor, stopOnLauncherFailure } from './supervisor.ts';
import { startDevTemporal, type DevTemporal } from './temporal.ts';

const say = (line: string) => process.stdout.write(`${line}\n`);
// Every part stops with the others: one that ends on its own, or a failure of this launcher, stops them all.
const supervisor = createSupervisor({
  say,
  hint: (name) =>
    name === 'worker' || name === 'api' ? `see .data/logs/${name}.log` : 'see the output above and .data/',
  stopped: '• stopped; data kept in .data/',
});
stopOnLauncherFailure(supervisor, say);

async function portOr(preferred: number): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const probe = createServer().once('error', () => void freePort().then(resolve));
    probe.listen(preferred, '127.0.0.1', () => probe.close(() => resolve(preferred)));
  });
}

async function database(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  say('• starting embedded PostgreSQL (.data/postgres)');
  let db: EmbeddedDatabase | undefined;
  const postgres = supervisor.adopt('PostgreSQL', async () => db?.stop());
  db = await startEmbeddedPostgres({
    dataDir: join(DATA_DIR, 'postgres'),
    port: await portOr(54329),
    onExit: (how) => postgres.exited(how),
  });
  return db.url;
}

async function temporal(): Promise<{ address: string; uiUrl: string | null }> {
  if (process.env.TEMPORAL_ADDRESS)
    return { address: process.env.TEMPORAL_ADDRESS, uiUrl: process.env.TEMPORAL_UI_URL ?? null };
  say('• starting the Temporal dev server with its Web UI (.data/temporal)');
  let server: DevTemporal | undefined;
  const temporalServer = supervisor.adopt('the Temporal dev server', async () => server?.stop());
  server = await startDevTemporal({
    dbFile: join(DATA_DIR, 'temporal', 'temporal.db'),
    port: await portOr(7233),
    ui: true,
    uiPort: await portOr(8233),
    build: (line) => say(`  ${line}`),
    onExit: (how) => temporalServer.exited(how),
  });
  say(`  Temporal CLI found through ${server.source}`);
  return server;
}

interface Demo {
  reference: string;
  api_key: string;
}

/** On first run, a demo company with the workflow API enabled and one member; its key is kept in .data/demo.json. */
async function demoCompany(orm: Orm): Promise<Demo> {
  const file = join(DATA_DIR, 'demo.json');
  const em = systemEm(orm);
  if (existsSync(file)) {
    const demo = JSON.parse(readFileSync(file, 'utf8')) as Demo;
    if (await em.findOne(Company, { id: demo.reference })) return demo;
  }
  const { company, apiKey } = await createCompany(em, {
    name: 'Demo Company S.A.S.',
    country: 'COL',
    taxId: '900123456',
  });
  await enableFeature(em, company, 'workflow_api');
  await upsertMember(em, company, { email: 'ana@example.co', name: 'Ana Gómez' });
  // Who receives for the company in 030 and 032, so that reception events can be tried out at once.
  await setDianEventPerson(companyEm(orm, company.id), company, {
    idType: '13',
    idNumber: '52123456',
    firstName: 'Ana',
    familyName: 'Gómez',
    jobTitle: 'Jefe de compras',
    department: 'Compras',
  });
  const demo = { reference: company.id, api_key: apiKey };
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });
  return demo;
}

/** A simulated integrator ERP receiving the demo company's webhooks; its secret is kept in .data/. */
async function erpReceiver() {
  const file = join(DATA_DIR, 'erp-receiver.json');
  const secret = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as { secret: string }).secret
    : randomBytes(24).toString('base64url');
  writeFileSync(file, `${JSON.stringify({ secret }, null, 2)}\n`, { mode: 0o600 });
  return { receiver: await startErpReceiver({ secret, port: await portOr(4010) }), secret };
}

/** The demo company's document.created and document.accounted go to the simulated ERP (its URL may change). */
async function subscribeDemo(orm: Orm, companyId: string, receiverUrl: string, secret: string): Promise<void> {
  const em = companyEm(orm, companyId);
  const url = `${receiverUrl}/webhooks`;
  const existing = await em.find(WebhookSubscription, {
    url: { $like: 'http://127.0.0.1:%/webhooks' },
    isActive: true,
  });
  for (const subscription of existing) subscription.isActive = subscription.url === url;
  await em.flush();
  const company = await em.findOneOrFail(Company, { id: companyId }, { filters: false });
  for (const event of ['document.created', 'document.accounted'] as const) {
    if (existing.some((subscription) => subscription.url === url && subscription.event === event)) continue;
    await addSubscription(em, secretBoxFromEnv(), { company, event, url, secret, outbound: outboundPolicyFromEnv() });
  }
}

function run(name: string, script: string, env: NodeJS.ProcessEnv, nodeFlags: readonly string[] = []): void {
  const logs = join(DATA_DIR, 'logs');
  mkdirSync(logs, { recursive: true });
  const log = createWriteStream(join(logs, `${name}.log`), { flags: 'a' });
  supervisor.spawn(name, process.execPath, [...nodeFlags, script], { env, log });
}

async function waitForHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
}

/**
 * The software the DIAN simulator knows in the embedded default; its signature checks trust any authority, so that a
 * certificate made for trying it out (see docs/operations.md) signs events it accepts.
 */
const DEV_DIAN_SOFTWARE = { id: 'd3b07384-d9a0-4c2e-9f1b-000000000dev', pin: '12345' };

try {
  mkdirSync(DATA_DIR, { recursive: true });
  const databaseUrl = await database();
  const orm = await initORM({ url: databaseUrl, poolMax: 2, statementTimeoutMs: 60_000, debug: false });
  const migrated = await migrateAndSeed(orm);
  say(`• database ready (${migrated.migrations.length} migrations applied now, ${migrated.banks} banks)`);
  const demo = await demoCompany(orm);

  const { address, uiUrl } = await temporal();
  say('• starting the simulators of the outside systems');
  const simulators = await startSimulators({ dian: { software: { [DEV_DIAN_SOFTWARE.id]: DEV_DIAN_SOFTWARE.pin } } });
  supervisor.adopt('the simulators', () => simulators.stop());
  const erp = await erpReceiver();
  supervisor.adopt('the ERP receiver', () => erp.receiver.stop());
  const port = Number(process.env.PORT ?? (await portOr(3000)));
  const apiUrl = `http://127.0.0.1:${port}`;
  // A variable set by the user (a real gateway, DIAN...) wins over its simulator.
  const env = {
    ...outsideSystemsEnv(simulators.urls),
    DIAN_SOFTWARE_ID: DEV_DIAN_SOFTWARE.id,
    DIAN_SOFTWARE_PIN: DEV_DIAN_SOFTWARE.pin,
    ...process.env,
    DATABASE_URL: databaseUrl,
    TEMPORAL_ADDRESS: address,
    PORT: String(port),
    PUBLIC_URL: process.env.PUBLIC_URL ?? apiUrl,
  };
  run('worker', 'worker/main.ts', env, WORKER_NODE_FLAGS);
  run('api', 'api/main.ts', env, API_NODE_FLAGS);
  await waitForHttp(`${apiUrl}/healthz`);
  await subscribeDemo(orm, demo.reference, erp.receiver.url, erp.secret);
  await orm.close();
  writeRuntime({ databaseUrl, temporalAddress: address, apiUrl, temporalUiUrl: uiUrl, pid: process.pid });

  say('');
  say(`  API          ${apiUrl}${PUBLIC_PREFIX}`);
  say(`  API docs     ${apiUrl}${PUBLIC_PREFIX}/docs`);
  say(`  Temporal UI  ${uiUrl ?? '(external Temporal: see its own UI)'}`);
  say(`  Demo company ${demo.reference}`);
  say(`  Demo API key ${demo.api_key}`);
  say(`  ERP receiver ${erp.receiver.url}/webhooks (simulator: ${erp.receiver.url}/_control/received)`);
  say(`  Logs         .data/logs/api.log, .data/logs/worker.log`);
  say('');
  say(`  curl -H 'api-key: ${demo.api_key}' ${apiUrl}${PUBLIC_PREFIX}/banks`);
  say('');
  say('Ready. Ctrl-C stops everything; the data stays in .data/. If one part stops, all of them stop.');
} catch (error) {
  say(`✗ ${(error as Error).stack ?? String(error)}`);
  await supervisor.shutdown(1);
}
