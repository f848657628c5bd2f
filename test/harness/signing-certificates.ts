// Companies' DIAN signing certificates for tests, made with openssl from a test authority the suite creates: valid,
// expired, not yet valid, or naming another NIT, never a real one. The DIAN simulator trusts the authority.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The software the suites' DIAN simulator knows, and the product is configured with. */
export const TEST_DIAN_SOFTWARE = { id: '56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', pin: '93751' };

export interface SigningAuthority {
  dir: string;
  /** The authority's certificate (PEM), which the DIAN simulator trusts. */
  ca: string;
}

const openssl = (args: string[], cwd?: string) =>
  execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });

/** openssl ca's dates: YYYYMMDDHHMMSSZ. */
const asn1Time = (date: Date) => `${date.toISOString().replace(/[-:T]/g, '').slice(0, 14)}Z`;

/** A test certification authority (RSA, as Colombian ones are). */
export function makeSigningAuthority(dir: string): SigningAuthority {
  mkdirSync(dir, { recursive: true });
  openssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    join(dir, 'ca.key'),
    '-out',
    join(dir, 'ca.pem'),
    '-days',
    '3650',
    '-subj',
    '/CN=Autoridad de Certificacion de Pruebas/O=Accounts payable test suite/C=CO',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  return { dir, ca: readFileSync(join(dir, 'ca.pem'), 'utf8') };
}

let issued = 0;

/**
 * What `openssl ca` needs to issue, per process: test files run in several processes at once, and openssl ca's
 * database (index, serial) is not shared safely. Serials start at random, so that no two processes repeat one.
 */
function issuingConfig(authority: SigningAuthority): string {
  const dir = join(authority.dir, `issuer-${process.pid}`);
  const config = join(dir, 'ca.cnf');
  if (existsSync(config)) return config;
  mkdirSync(join(dir, 'issued'), { recursive: true });
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'serial'), `${randomBytes(8).toString('hex')}\n`);
  writeFileSync(
    config,
    [
      '[ca]',
      'default_ca = test_ca',
      '[test_ca]',
      `dir = ${dir}`,
      'database = $dir/index.txt',
      'new_certs_dir = $dir/issued',
      'serial = $dir/serial',
      `certificate = ${join(authority.dir, 'ca.pem')}`,
      `private_key = ${join(authority.dir, 'ca.key')}`,
      'default_md = sha256',
      'policy = anything',
      'unique_subject = no',
      'x509_extensions = signing',
      '[anything]',
      'commonName = supplied',
      'serialNumber = optional',
      'organizationName = optional',
      'countryName = optional',
      '[signing]',
      'basicConstraints = CA:FALSE',
      'keyUsage = critical, digitalSignature, nonRepudiation',
      '',
    ].join('\n'),
  );
  return config;
}

/**
 * A company's certificate from the authority, as a PKCS#12 file under `password`: its subject names the company and
 * carries the NIT as serialNumber, as Colombian authorities issue them. Valid for two days from an hour ago unless
 * dates are given.
 */
export function issueSigningCertificate(
  authority: SigningAuthority,
  options: { nit: string; name: string; password: string; notBefore?: Date; notAfter?: Date },
): Buffer {
  const config = issuingConfig(authority);
  const name = `company-${++issued}`;
  const path = (extension: string) => join(dirname(config), `${name}.${extension}`);
  const notBefore = options.notBefore ?? new Date(Date.now() - 3_600_000);
  const notAfter = options.notAfter ?? new Date(Date.now() + 2 * 86_400_000);
  openssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    path('key'),
    '-out',
    path('csr'),
    '-subj',
    `/CN=${options.name}/serialNumber=${options.nit}/O=${options.name}/C=CO`,
  ]);
  openssl([
    'ca',
    '-batch',
    '-config',
    config,
    '-startdate',
    asn1Time(notBefore),
    '-enddate',
    asn1Time(notAfter),
    '-notext',
    '-in',
    path('csr'),
    '-out',
    path('pem'),
  ]);
  openssl([
    'pkcs12',
    '-export',
    '-inkey',
    path('key'),
    '-in',
    path('pem'),
    '-certfile',
    join(authority.dir, 'ca.pem'),
    '-passout',
    `pass:${options.password}`,
    '-out',
    path('p12'),
  ]);
  return readFileSync(path('p12'));
}
