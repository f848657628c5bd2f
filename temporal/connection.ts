import {
  Client,
  Connection,
  defaultGrpcRetryOptions,
  makeGrpcRetryInterceptor,
  type ClientInterceptors,
  type ConnectionOptions,
} from '@temporalio/client';
import type { TemporalConfig } from './config.ts';

/**
 * How a long-running process (the API, the worker's own client) talks to Temporal so that an outage stays short for it:
 * - a call retries a refused connection a few times (about a second) and then fails, so the API answers 503 at once
 *   rather than after the SDK's default ten attempts (about 20 s);
 * - once the server is back, the channel reconnects within 5 s (gRPC's default back-off grows to 2 minutes).
 */
export function temporalConnectionOptions(config: Pick<TemporalConfig, 'address' | 'security'>): ConnectionOptions {
  return {
    address: config.address,
    ...config.security,
    connectTimeout: 5_000,
    channelArgs: { 'grpc.initial_reconnect_backoff_ms': 500, 'grpc.max_reconnect_backoff_ms': 5_000 },
    interceptors: [makeGrpcRetryInterceptor(defaultGrpcRetryOptions({ maxAttempts: 4 }))],
  };
}

/** A Temporal client for the API and the CLI. The connection is lazy, so a process starts even while Temporal is down. */
export function createTemporalClient(config: TemporalConfig, interceptors?: ClientInterceptors): Client {
  const connection = Connection.lazy(temporalConnectionOptions(config));
  return new Client({ connection, namespace: config.namespace, ...(interceptors ? { interceptors } : {}) });
}
