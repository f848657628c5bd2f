// An upload that does not arrive whole is logged once, with its route, the bytes received and why it ended (the client
// went away, the server's deadline passed, a limit), and nothing of it is stored. Over real HTTP: a raw socket declares
// a Content-Length, sends part of the body and is destroyed (or left to the deadline).
import { existsSync, readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { DocumentNote } from '../../db/documents/note.entity.ts';
import { companyEm } from '../../db/orm.ts';
import { createLogger } from '../../platform/logger.ts';
import { seedDocument } from '../helpers/builders.ts';
import { makeCompany } from '../helpers/companies.ts';
import { startTestApi, type TestApi } from '../helpers/stack.ts';

const PREFIX = '/public/api/v1';
const NOTES_ROUTE = `${PREFIX}/documents/:reference/notes`;
const REQUEST_TIMEOUT_MS = 1_500;
const BOUNDARY = 'cortado7MA4YWxkTrZu0gW';

const lines: Record<string, unknown>[] = [];
let api: TestApi;
beforeAll(async () => {
  const destination = new Writable({
    write: (chunk, _encoding, done) => {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  api = await startTestApi({
    config: { requestTimeoutMs: REQUEST_TIMEOUT_MS },
    logger: createLogger('api', 'info', destination),
  });
});
afterAll(() => api.close());

const ended = (path: string) =>
  lines.filter((line) => line.msg === 'upload ended before its body was taken' && line.path === path);

/** The head of a multipart body: a part that opens a PDF file, then `fill` bytes of it; the rest never comes. */
function multipartStart(field: string, fill: number): Buffer {
  const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="factura.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`;
  return Buffer.concat([Buffer.from(head), Buffer.alloc(fill, 0x41)]);
}

/**
 * Sends a request whose headers declare `declared` bytes of body, then `sent` (part of it). Answers the socket, once
 * what was sent left this process (then `destroy` drops it, as a client that gives up would).
 */
async function partialRequest(
  path: string,
  headers: Record<string, string>,
  declared: number,
  sent: Buffer,
): Promise<Socket> {
  const { hostname, port } = new URL(api.url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  const head = [
    `POST ${path} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Content-Length: ${declared}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n');
  await new Promise<void>((resolve, reject) =>
    socket.write(Buffer.concat([Buffer.from(head), sent]), (error) => (error ? reject(error) : resolve())),
  );
  return socket;
}

/** Files the company has in the storage: none may be left of a cut upload, not even a staging file. */
function storedFiles(companyId: string): string[] {
  const root = join(inject('storageDir'), companyId);
  if (!existsSync(root)) return [];
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('an upload that does not arrive whole', () => {
  it('is logged once per note upload the client aborts mid-body, with route and bytes, and nothing is stored', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const document = await seedDocument(api.orm, company);
    const path = `${PREFIX}/documents/${document.id}/notes`;
    const declared = 2 * 1024 * 1024;
    const sent = multipartStart('file', 256 * 1024);
    const headers = { 'api-key': apiKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` };
    const uploads = 5;
    const sockets = await Promise.all(
      Array.from({ length: uploads }, () => partialRequest(path, headers, declared, sent)),
    );
    // Let the server read what arrived, then go away.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const socket of sockets) socket.destroy();

    await expect.poll(() => ended(path).length).toBe(uploads);
    // One line each, however long we wait: not one per chunk, not a second one from the access log's side.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ended(path)).toHaveLength(uploads);
    for (const line of ended(path)) {
      expect(line).toMatchObject({
        level: 40,
        method: 'POST',
        route: NOTES_ROUTE,
        reason: 'aborted',
        bytesReceived: sent.length,
        bytesDeclared: declared,
      });
    }
    // Each request still ends in the access log, so that it is counted and timed.
    expect(lines.filter((line) => line.msg === 'request' && line.path === path)).toHaveLength(uploads);
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document: document.id })).toBe(0);
    expect(storedFiles(company.id)).toEqual([]);

    // The API goes on serving, that document's notes included.
    const form = new FormData();
    form.append('file', new Blob(['%PDF-1.7\n%%EOF\n'], { type: 'application/pdf' }), 'entera.pdf');
    const whole = await api.call('POST', path, { apiKey, rawBody: form });
    expect(whole.status).toBe(201);
  });

  it('is logged as timed out when the body stops arriving until the server deadline, and nothing is stored', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const path = `${PREFIX}/documents`;
    const sent = multipartStart('receipt', 64 * 1024);
    const socket = await partialRequest(
      path,
      { 'api-key': apiKey, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
      1024 * 1024,
      sent,
    );
    const answer: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => answer.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await closed;
    expect(Buffer.concat(answer).toString()).toMatch(/^HTTP\/1\.1 408/);
    await expect
      .poll(() => ended(path))
      .toEqual([
        expect.objectContaining({
          route: `${PREFIX}/documents`,
          reason: 'timed_out',
          bytesReceived: sent.length,
          bytesDeclared: 1024 * 1024,
        }),
      ]);
    expect(storedFiles(company.id)).toEqual([]);
  });

  it('is logged for a JSON body cut short, and for a file past its cap (answered 400, stored nowhere)', async () => {
    const { company, apiKey } = await makeCompany(api.orm, { country: 'COL' });
    const document = await seedDocument(api.orm, company);
    const path = `${PREFIX}/documents/${document.id}/notes`;
    const json = Buffer.from('{"comment":"a medio camino');
    const socket = await partialRequest(path, { 'api-key': apiKey, 'content-type': 'application/json' }, 4096, json);
    await new Promise((resolve) => setTimeout(resolve, 300));
    socket.destroy();
    // The JSON body is read before the route is matched: the line names its path.
    await expect
      .poll(() => ended(path))
      .toEqual([expect.objectContaining({ reason: 'aborted', bytesReceived: json.length, bytesDeclared: 4096 })]);

    const form = new FormData();
    const big = new Uint8Array(6 * 1024 * 1024);
    big.set(new TextEncoder().encode('%PDF-1.7\n'));
    form.append('file', new Blob([big], { type: 'application/pdf' }), 'grande.pdf');
    const capped = await api.call('POST', path, { apiKey, rawBody: form });
    expect(capped.status).toBe(400);
    await expect.poll(() => ended(path).map((line) => line.reason)).toEqual(['aborted', 'cap']);
    const [, cap] = ended(path);
    expect(cap).toMatchObject({ route: NOTES_ROUTE });
    expect(cap!.bytesReceived).toBeGreaterThan(big.length);
    expect(cap!.bytesReceived).toBe(cap!.bytesDeclared);
    expect(await companyEm(api.orm, company.id).count(DocumentNote, { document: document.id })).toBe(0);
    expect(storedFiles(company.id)).toEqual([]);
  });
});
