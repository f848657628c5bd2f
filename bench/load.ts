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

/** Drives `baseUrl` with autocannon over loopback, cycling through `requests` on every connection. */
export async function load(
  baseUrl: string,
  requests: readonly LoadRequest[],
  options: { seconds: number; connections: number },
): Promise<LoadResult> {
  const result = await autocannon({
    url: baseUrl,
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
