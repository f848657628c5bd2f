import autocannon from 'autocannon';

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  method?: 'GET' | 'POST';
  body?: string;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  /** Mean response size, to show both sides answer the same data. */
  bytesPerResponse: number;
  non2xx: number;
  errors: number;
}

/** URLs that stand for several servers: the first API of the production shape stands for every API. */
const replicas = new Map<string, readonly string[]>();

/** From now on, a load on `url` spreads its connections over `urls`, in turn (autocannon's own round robin). */
export function spreadLoad(url: string, urls: readonly string[]): void {
  replicas.set(url, urls);
}

/**
 * Drives `baseUrl` (or the servers it stands for, see `spreadLoad`) with autocannon over loopback, cycling through
 * `requests` on every connection.
 */
export async function load(
  baseUrl: string,
  requests: readonly LoadRequest[],
  options: { seconds: number; connections: number },
): Promise<LoadResult> {
  const urls = replicas.get(baseUrl) ?? [baseUrl];
  const result = await autocannon({
    // autocannon takes several URLs, its connections taking them in turn; its types know of one only.
    url: urls.length === 1 ? urls[0]! : (urls as unknown as string),
    connections: options.connections,
    duration: options.seconds,
    requests: requests.map((request) => ({
      method: request.method ?? 'GET',
      path: request.path,
      headers: request.headers,
      ...(request.body ? { body: request.body } : {}),
    })),
  });
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bytesPerResponse: result.requests.total ? result.throughput.total / result.requests.total : 0,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}
