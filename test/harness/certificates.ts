import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';

export interface TestCertificates {
  /** The suite's own certificate authority (PEM), which the product trusts as an operator's private CA. */
  caFile: string;
  ca: string;
  /** A server certificate signed by it, for `address`, and its key (PEM files). */
  certFile: string;
  keyFile: string;
}

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Makes a test CA and a server certificate with openssl, valid for two days, never a real one: for an IP address
 * (`10.201.3.2`) or a host name (`erp.receiver.test`).
 */
export function makeServerCertificate(dir: string, address: string): TestCertificates {
  const subjectAltName = isIP(address) ? `IP:${address}` : `DNS:${address}`;
  const path = (name: string) => join(dir, name);
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl([
    'req',
    '-x509',
    ...key,
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Accounts payable test CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(['req', ...key, '-keyout', path('server.key'), '-out', path('server.csr'), '-subj', `/CN=${address}`]);
  writeFileSync(
    path('server.ext'),
    `subjectAltName=${subjectAltName}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`,
  );
  openssl([
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-out',
    path('server.pem'),
    '-days',
    '2',
    '-extfile',
    path('server.ext'),
  ]);
  return {
    caFile: path('ca.pem'),
    ca: readFileSync(path('ca.pem'), 'utf8'),
    certFile: path('server.pem'),
    keyFile: path('server.key'),
  };
}
