// What the simulators of outside systems share: a JSON-over-HTTP server on loopback with a free port, and the guard
// every simulator's requests go through, so that no request can stop the process that runs it (`npm start` among them).
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { isObject } from '../platform/json.ts';

export interface SimulatorRequest {
  method: string;
  /** Path segments without the query, e.g. ['transfers', 'abc']. */
  segments: string[];
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when empty, null when it is not JSON. */
  json: unknown;
}

export interface SimulatorReply {
  status: number;
  body: unknown;
}

export interface RunningServer {
  url: string;
  stop: () => Promise<void>;
}

export const reply = (status: number, body: unknown): SimulatorReply => ({ status, body });
export const failure = (status: number, code: string, message: string): SimulatorReply =>
  reply(status, { error: { code, message } });

export function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Bodies a simulator reads at most, unless told otherwise: past it, 413. */
export const MAX_SIMULATOR_BODY_BYTES = 64 * 1024 * 1024;

/**
 * A simulator's request listener that nothing a client sends can break. It reads the body whole (413 past
 * `maxBodyBytes`), hands it to `handle`, and answers 400 `bad_request` when `handle` throws or rejects: a missing or
 * malformed body, a path that does not decode, anything the simulator did not expect is the request's fault, never the
 * process's end. A request the client abandons is dropped; a failure after the answer started cuts the connection.
 */
export function guarded(
  handle: (request: IncomingMessage, body: Buffer, response: ServerResponse) => void | Promise<void>,
  options: { maxBodyBytes?: number } = {},
): RequestListener {
  const maxBodyBytes = options.maxBodyBytes ?? MAX_SIMULATOR_BODY_BYTES;
  return (request, response) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    request.on('error', () => response.destroy());
    response.on('error', () => response.destroy());
    request.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size <= maxBodyBytes) return void chunks.push(chunk);
      refused = true;
      chunks.length = 0;
      answerJson(response, failure(413, 'payload_too_large', `Bodies are at most ${maxBodyBytes} bytes`));
    });
    request.on('end', () => {
      if (refused) return;
      const fail = (error: unknown) =>
        answerJson(response, failure(400, 'bad_request', error instanceof Error ? error.message : String(error)));
      try {
        const done = handle(request, Buffer.concat(chunks), response);
        if (done instanceof Promise) done.catch(fail);
      } catch (error) {
        fail(error);
      }
    });
  };
}

/** Answers JSON, unless an answer already started: then the connection is cut, the only way left to say it failed. */
function answerJson(response: ServerResponse, answer: SimulatorReply): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  const body = JSON.stringify(answer.body);
  response.writeHead(answer.status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  response.end(body);
}

/** Starts a JSON server on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function serveJson(
  handle: (request: SimulatorRequest) => SimulatorReply,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const server = createServer(
    guarded((request, body, response) => {
      const raw = body.toString('utf8');
      let json: unknown;
      try {
        json = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        json = null;
      }
      const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
      const segments = path.split('/').filter(Boolean).map(decodeURIComponent);
      // A control route takes a JSON object or nothing (its fields all optional then).
      if (segments[0] === '_control' && json !== undefined && !isObject(json))
        return answerJson(response, failure(400, 'invalid_request', 'A control body must be a JSON object'));
      answerJson(response, handle({ method: request.method ?? '', segments, headers: request.headers, json }));
    }),
  );
  return listen(server, options);
}

/** Listens on loopback (or `host`), on `port` or a free one; `stop` also drops kept-alive connections. An https server answers an https URL. */
export async function listen(
  server: Server | TlsServer,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `${server instanceof TlsServer ? 'https' : 'http'}://${urlHost}:${port}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((cause) => (cause ? reject(cause) : resolve()));
        server.closeAllConnections();
      }),
  };
}
