import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { expectStatus } from '@accounts-payable/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../platform/ports.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { suiteEnv } from '../helpers/ops.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(() => api.close());

describe('graceful shutdown of the API process', () => {
  it('on SIGTERM stops accepting connections but finishes the request in flight', async () => {
    const { company, apiKey } = await makeCompany(api.orm);
    const document = await seedDocument(api.orm, company);
    const port = await freePort();
    const child = spawn(process.execPath, ['api/main.ts'], {
      env: { ...suiteEnv(), PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let logs = '';
    child.stdout!.on('data', (chunk: Buffer) => (logs += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await expect.poll(() => logs.includes('api listening'), { timeout: 20_000 }).toBe(true);

    // A request whose body arrives slowly: it is in flight when the signal comes.
    const body = JSON.stringify({ tags_text: ['despues-del-apagado'] });
    const socket = connect(port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /public/api/v1/documents/${document.id}/tags HTTP/1.1\r\nHost: x\r\napi-key: ${apiKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await expect.poll(() => logs.length > 0).toBe(true);
    child.kill('SIGTERM');
    await expect.poll(() => logs.includes('finishing in-flight requests'), { timeout: 10_000 }).toBe(true);

    // New connections are refused while the request in flight still completes.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    socket.write(body.slice(10));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('despues-del-apagado');
    expect(await exited).toBe(0);
    const stored = expectStatus(await api.sdk(apiKey).getDocument({ params: { reference: document.id } }), 200);
    expect(stored.tags).toContain('despues-del-apagado');
  });
});
