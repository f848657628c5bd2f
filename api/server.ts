import { createServer, type Server } from 'node:http';
import type Koa from 'koa';
import type { ApiConfig } from './config.ts';

export interface RunningServer {
  server: Server;
  url: string;
  /** Stops accepting connections and resolves once in-flight requests have finished. */
  stop(): Promise<void>;
}

/** Listens with bounded timeouts, so that no request hangs and slow clients cannot hold sockets forever. */
export async function listen(
  app: Koa,
  config: Pick<ApiConfig, 'host' | 'port' | 'requestTimeoutMs'>,
): Promise<RunningServer> {
  // The server checks request deadlines at this interval (Node's default, 30 s, would let a 1 s timeout run 30 s).
  const handle = app.callback();
  // Koa answers its own failures: the promise it returns never rejects.
  const server = createServer(
    { connectionsCheckingInterval: Math.min(1_000, config.requestTimeoutMs) },
    (request, response) => void handle(request, response),
  );
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = Math.min(config.requestTimeoutMs, 20_000);
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  return {
    server,
    url: `http://${config.host}:${port}`,
    stop: () =>
      new Promise((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
