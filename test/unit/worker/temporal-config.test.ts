import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { temporalConnectionOptions } from '../../../temporal/connection.ts';
import { temporalConfigFromEnv } from '../../../temporal/config.ts';

const address = { TEMPORAL_ADDRESS: 'ap.a1b2c.tmprl.cloud:7233' };

function pemFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'temporal-tls-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  return { cert: file('client.pem', 'CERT'), key: file('client.key', 'KEY'), ca: file('ca.pem', 'CA') };
}

describe('the connection to Temporal', () => {
  it('is plain without TLS settings, as for the dev server and docker compose', () => {
    expect(temporalConfigFromEnv(address).security).toEqual({});
  });

  it('uses mutual TLS with a client certificate and key, a CA and a server name when given', () => {
    const files = pemFiles();
    const { security } = temporalConfigFromEnv({
      ...address,
      TEMPORAL_TLS_CERT_PATH: files.cert,
      TEMPORAL_TLS_KEY_PATH: files.key,
      TEMPORAL_TLS_CA_PATH: files.ca,
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    });
    expect(security.tls).toEqual({
      clientCertPair: { crt: Buffer.from('CERT'), key: Buffer.from('KEY') },
      serverRootCACertificate: Buffer.from('CA'),
      serverNameOverride: 'temporal.internal',
    });
    expect(temporalConnectionOptions({ address: address.TEMPORAL_ADDRESS, security })).toMatchObject({
      address: address.TEMPORAL_ADDRESS,
      tls: security.tls,
    });
  });

  it('turns TLS on with an API key, or on its own', () => {
    expect(temporalConfigFromEnv({ ...address, TEMPORAL_API_KEY: 'key-1' }).security).toEqual({
      tls: true,
      apiKey: 'key-1',
    });
    expect(temporalConfigFromEnv({ ...address, TEMPORAL_TLS: 'true' }).security).toEqual({ tls: true });
  });

  it('refuses a certificate without its key', () => {
    expect(() => temporalConfigFromEnv({ ...address, TEMPORAL_TLS_CERT_PATH: pemFiles().cert })).toThrow(/go together/);
  });
});
