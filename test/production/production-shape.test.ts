// The product as it is deployed (docker-compose.yml's shape, without Docker): the real Temporal server on PostgreSQL,
// two API and two worker processes with NODE_ENV=production and an operator's secrets, the outside systems on a
// non-loopback address of a network namespace, allowlisted for webhooks, the ERP receiver behind https.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatFigures } from '../harness/figures.ts';
import { runCli } from '../harness/operator.ts';
import { startProductionStack, type ProductionStack } from '../harness/production-stack.ts';
import { seedFromEnv } from '../harness/random.ts';
import { runScenario, type CrashProfile } from '../harness/scenario.ts';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Public addresses a note may link to, IPv4 and IPv6: stored, never fetched. */
const PUBLIC_LINKS = [
  'https://93.184.216.34/soportes/factura-77.pdf',
  'https://[2001:4860:4860::8888]/soportes/factura-77.pdf',
];

const PROFILE: CrashProfile = {
  name: 'production shape: one API, one worker and the Temporal server killed once each',
  // Imports spread over half a minute, so that every fault (a worker takes the longest to come back: it bundles its
  // workflows first) lands while flows are under way.
  load: {
    documents: 12,
    lanes: 8,
    importBatch: 1,
    spreadMs: 36_000,
    approveShare: 0.5,
    documentTimeoutMs: 240_000,
    noteLinks: PUBLIC_LINKS,
    pay: true,
  },
  faults: { rounds: 1, gapMs: [3_000, 8_000], downMs: [500, 2_500] },
  settleTimeoutMs: 240_000,
};

let stack: ProductionStack;
let held = false;

beforeAll(async () => {
  stack = await startProductionStack();
});
// A failed run keeps its directory: every process's log, the databases.
afterAll(async () => {
  if (!held && stack) console.log(`[production] logs kept in ${join(stack.dir, 'logs')}`);
  await stack?.stop({ keep: !held });
});

/** Starts one product process with the given environment and waits for it to exit (it must refuse to start). */
function refusedStart(script: string, env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(REPO, script)], {
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

const without = (env: Record<string, string>, ...names: string[]) =>
  Object.fromEntries(Object.entries(env).filter(([name]) => !names.includes(name)));

describe('the production shape', () => {
  it('stops a process that lacks a production secret, saying which one and how to make it', async () => {
    const worker = await refusedStart(
      'worker/main.ts',
      without(stack.productEnv, 'WEBHOOK_SECRET_KEY', 'PUBLIC_URL', 'WORKER_BUILD_ID'),
    );
    expect(worker.code).toBe(1);
    const messages = worker.output
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(messages.map((line) => line.level)).toEqual([60, 60, 60]);
    expect(messages.map((line) => line.msg).sort()).toEqual([
      expect.stringMatching(/^PUBLIC_URL is required in production: the API's URL as integrators reach it/),
      expect.stringMatching(
        /^WEBHOOK_SECRET_KEY is required in production: 64 hex characters .* make one with `openssl rand -hex 32`/,
      ),
      expect.stringMatching(/^WORKER_BUILD_ID is required in production: the release this worker runs/),
    ]);
    const api = await refusedStart('api/main.ts', without(stack.productEnv, 'DATABASE_URL'));
    expect(api.code).toBe(1);
    expect(api.output).toMatch(/DATABASE_URL is required in production: the PostgreSQL of the read state/);
  });

  it('registers webhook receivers by the outbound policy: public IPv4 and the allowlisted network, https only', async () => {
    const created = await runCli(stack.env, [
      'companies',
      'create',
      '--name',
      'Política de salida S.A.S.',
      '--country',
      'COL',
    ]);
    const company = created.stdout.reference as string;
    const add = (url: string) =>
      runCli(stack.env, ['webhooks', 'add', '--company', company, '--event', 'document.created', '--url', url]);

    // The company has no documents: nothing is ever sent to the public address.
    const publicReceiver = await add('https://93.184.216.34/hooks/ap');
    expect(publicReceiver).toMatchObject({ code: 0, stdout: { url: 'https://93.184.216.34/hooks/ap' } });
    expect(await add(`https://${stack.namespace.address}:8443/hooks`)).toMatchObject({ code: 0 });

    expect((await add('https://10.9.8.7/hooks')).error).toEqual({
      code: 'invalid_url',
      message: '10.9.8.7 is in 10.0.0.0/8 (private); allow it with OUTBOUND_ALLOWED_NETWORKS',
    });
    expect((await add('https://[::ffff:192.168.4.2]/hooks')).error).toMatchObject({
      code: 'invalid_url',
      message: expect.stringMatching(/carries 192\.168\.4\.2, which is in 192\.168\.0\.0\/16 \(private\)/),
    });
    expect((await add('https://127.0.0.1:3000/hooks')).error).toMatchObject({
      code: 'invalid_url',
      message: expect.stringMatching(/127\.0\.0\.0\/8 \(loopback\)/),
    });
    expect((await add(`http://${stack.namespace.address}/hooks`)).error).toEqual({
      code: 'invalid_url',
      message: 'The URL must use https',
    });

    const listed = await runCli(stack.env, ['webhooks', 'list', '--company', company]);
    expect(listed.stdout.subscriptions.map((subscription: { url: string }) => subscription.url)).toEqual([
      'https://93.184.216.34/hooks/ap',
      `https://${stack.namespace.address}:8443/hooks`,
    ]);
  });

  it('runs the business flow through both APIs while an API, a worker and the Temporal server are killed, and loses nothing', async () => {
    const {
      figures,
      held: promisesHeld,
      apiKey,
    } = await runScenario(stack, PROFILE, seedFromEnv(), (line) => console.log(`[production] ${line}`));
    console.log(formatFigures(figures));
    expect(figures.faults.map((fault) => fault.kind).sort()).toEqual(['api', 'temporal', 'worker']);
    expect(figures.checked.findings).toEqual({ lost: [], stuck: [], doubled: [] });
    expect(figures.serverErrors).toEqual([]);
    expect(figures.failures).toEqual([]);
    expect(figures.accepted).toMatchObject({
      note: 2 * PROFILE.load.documents,
      pay: PROFILE.load.documents,
      account: expect.any(Number),
    });
    expect(figures.waitedForAccount).toBe(1);
    expect(figures.checked.deliveries.created).toBe(PROFILE.load.documents);
    expect(figures.checked.deliveries.accounted).toBe(PROFILE.load.documents);
    expect(promisesHeld).toBe(true);

    // A note's attachment goes to the object store through one API and is served by the other.
    const [first, second] = stack.apiUrls as [string, string];
    const { items } = (await (
      await fetch(`${first}/public/api/v1/documents?page_size=1`, { headers: { 'api-key': apiKey } })
    ).json()) as { items: { reference: string }[] };
    const form = new FormData();
    const pdf = Buffer.from(`%PDF-1.4\n% soporte ${Date.now()}\n%%EOF\n`);
    form.append('file', new Blob([pdf], { type: 'application/pdf' }), 'soporte.pdf');
    const uploaded = await fetch(`${first}/public/api/v1/documents/${items[0]!.reference}/notes`, {
      method: 'POST',
      headers: { 'api-key': apiKey },
      body: form,
    });
    expect(uploaded.status).toBe(201);
    const { file_path: link } = (await uploaded.json()) as { file_path: string };
    const served = await fetch(link.replace(first, second), { headers: { 'api-key': apiKey } });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer())).toEqual(pdf);
    held = true;
  });
});
