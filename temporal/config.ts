import { readFileSync } from 'node:fs';
import type { TLSConfig } from '@temporalio/client';

/** How a connection to Temporal is secured: TLS (mutual, with a client certificate) and an API key, as a cloud service asks. */
export interface TemporalSecurity {
  tls?: TLSConfig | true;
  apiKey?: string;
}

/** Where the Temporal service is, how to reach it safely, and which namespace and task queue this deployment uses. */
export interface TemporalConfig {
  address: string;
  namespace: string;
  taskQueue: string;
  security: TemporalSecurity;
}

export function temporalConfigFromEnv(env: NodeJS.ProcessEnv = process.env): TemporalConfig {
  const address = env.TEMPORAL_ADDRESS;
  if (!address) throw new Error('TEMPORAL_ADDRESS is not set (npm start sets it for the embedded default)');
  return {
    address,
    namespace: env.TEMPORAL_NAMESPACE ?? 'default',
    taskQueue: env.TEMPORAL_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    security: temporalSecurityFromEnv(env),
  };
}

/**
 * TLS is on with `TEMPORAL_TLS=true` or any of its settings: a client certificate and key (mutual TLS), a CA for a
 * server whose certificate the system does not trust, a server name; an API key implies it too.
 */
function temporalSecurityFromEnv(env: NodeJS.ProcessEnv): TemporalSecurity {
  const read = (variable: string) => {
    const path = env[variable]?.trim();
    return path ? readFileSync(path) : undefined;
  };
  const crt = read('TEMPORAL_TLS_CERT_PATH');
  const key = read('TEMPORAL_TLS_KEY_PATH');
  if (Boolean(crt) !== Boolean(key)) throw new Error('TEMPORAL_TLS_CERT_PATH and TEMPORAL_TLS_KEY_PATH go together');
  const ca = read('TEMPORAL_TLS_CA_PATH');
  const serverName = env.TEMPORAL_TLS_SERVER_NAME?.trim();
  const apiKey = env.TEMPORAL_API_KEY?.trim() || undefined;
  const tls: TLSConfig = {
    ...(crt && key ? { clientCertPair: { crt, key } } : {}),
    ...(ca ? { serverRootCACertificate: ca } : {}),
    ...(serverName ? { serverNameOverride: serverName } : {}),
  };
  const on = env.TEMPORAL_TLS === 'true' || Object.keys(tls).length > 0 || apiKey !== undefined;
  if (!on) return {};
  return { tls: Object.keys(tls).length ? tls : true, ...(apiKey ? { apiKey } : {}) };
}

/** The one task queue every workflow and activity of the product runs on, unless configured otherwise. */
export const DEFAULT_TASK_QUEUE = 'accounts-payable';
