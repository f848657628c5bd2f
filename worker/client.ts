import { Client, Connection, type ClientInterceptors } from '@temporalio/client';
import type { TemporalConfig } from './config.ts';

/** A Temporal client for the API and the CLI. The connection is lazy, so a process starts even while Temporal is down. */
export function createTemporalClient(config: TemporalConfig, interceptors?: ClientInterceptors): Client {
  const connection = Connection.lazy({ address: config.address, connectTimeout: 5_000 });
  return new Client({ connection, namespace: config.namespace, ...(interceptors ? { interceptors } : {}) });
}
