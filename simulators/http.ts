// What the simulators of outside systems share: a JSON-over-HTTP server on loopback with a free port.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { Server as TlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

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

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function header(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** Starts a JSON server on 127.0.0.1 unless told otherwise (a free port unless one is given). */
export async function serveJson(
  handle: (request: SimulatorRequest) => SimulatorReply,
  options: { port?: number; host?: string } = {},
): Promise<RunningServer> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = raw === '' ? undefined : JSON.parse(raw);
      } catch {
        json = null;
      }
      const path = (request.url ?? '/').split('?', 1)[0] ?? '/';
      let answer: SimulatorReply;
      try {
        answer = handle({
          method: request.method ?? '',
          segments: path.split('/').filter(Boolean).map(decodeURIComponent),
          headers: request.headers,
          json,
        });
      } catch (error) {
        answer = failure(500, 'simulator_error', (error as Error).message);
      }
      const body = JSON.stringify(answer.body);
      response.writeHead(answer.status, {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
      });
      response.end(body);
    });
  });
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
